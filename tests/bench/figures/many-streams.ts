/**
 * Figure 11, many streams: the real decode-cell runner at C = 1,024 against a simulator with room for every stream
 * at a known rate (tests/fixtures/sim-profiles/roomy-steady.json: 16 tok/s per stream whatever the batch), at speed
 * 1, with its ground truth (GET /sim/requests). As ratios: the cell's total tok/s against the tokens the simulator
 * emitted in the same window and against the profile's rate, its per-request rate against 16, and the streams the
 * simulator ran through the whole window against C. The client's own health in the window is in the notes.
 */
import { Interrupt, ServerClock } from '../../../src-main/engine/bench/clock';
import { runDecodeCell } from '../../../src-main/engine/bench/decode';
import { createHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import { probeServer } from '../../../src-main/engine/server/probe';
import { ROOMY_PROFILE, ROOMY_STREAM_RATE } from '../../helpers/paths';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

const C = 1024;

interface TruthRequest {
  first_token_ms: number | null;
  finished_ms: number | null;
  emissions: Array<[number, number]>;
}

interface ManyResult {
  totalVsTruth: number;
  totalVsProfile: number;
  perRequestVsProfile: number;
  heldShare: number;
  note: string;
}

async function oneCell(url: string): Promise<ManyResult> {
  await fetch(`${url}/sim/requests`, { method: 'DELETE' });
  const t = await probeServer({ baseUrl: url });
  if (!t.ok) throw new Error(t.error);
  const http = createHttp(t.data);
  const out = await runDecodeCell({
    http,
    engine: 'vllm',
    metrics: true,
    clock: new ServerClock(1),
    context: 0,
    concurrency: C,
    body: JSON.stringify({
      model: http.model,
      messages: buildMessages(`many ${Date.now()}`, 0),
      max_tokens: 4096,
      stream: true,
      ignore_eos: true,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    }),
    windowSeconds: Math.max(5, BENCH.truthWindowSeconds * 2),
    stallSeconds: 30,
    readinessTimeoutSeconds: 60,
    stop: new Interrupt(),
    emit: () => undefined,
  });
  await http.agent.close();
  const w = out.window;
  if (!w) throw new Error(`the C=${C} cell measured no window: ${out.cell.status}, ${out.cell.reason ?? ''}`);
  const truth = ((await (await fetch(`${url}/sim/requests`)).json()) as { requests: TruthRequest[] }).requests;
  let emitted = 0;
  for (const r of truth) for (const [at, k] of r.emissions) if (at >= w.startMs && at <= w.endMs) emitted += k;
  const held = truth.filter(
    (r) => r.first_token_ms !== null && r.first_token_ms <= w.startMs && (r.finished_ms ?? Infinity) >= w.endMs,
  ).length;
  const cell = out.cell;
  const h = cell.clientHealth;
  const health = h
    ? `client: loop delay p99 ${(h.loopDelayP99Seconds * 1000).toFixed(1)} ms, waited ${((h.runDelayShare ?? 0) * 100).toFixed(1)}% of the window for a CPU, ${((h.cpuSecondsPerToken ?? 0) * 1e6).toFixed(2)} µs CPU/token`
    : 'no client health';
  return {
    totalVsTruth: (cell.outputTokens ?? 0) / Math.max(1, emitted),
    totalVsProfile: (cell.totalTokensPerSecond ?? 0) / (C * ROOMY_STREAM_RATE),
    perRequestVsProfile: (cell.perRequestTokensPerSecond ?? 0) / ROOMY_STREAM_RATE,
    heldShare: held / C,
    note: `cell ${cell.status}; ${(cell.totalTokensPerSecond ?? 0).toFixed(0)} tok/s measured, ${C * ROOMY_STREAM_RATE} by the profile; ${health}`,
  };
}

export async function manyStreamsFigure(): Promise<Row[]> {
  const sim = await startSim({
    profile: ROOMY_PROFILE,
    debug: true,
    args: ['--max-num-seqs', '4096', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  const results: ManyResult[] = [];
  try {
    for (let i = 0; i < BENCH.repeats; i++) results.push(await oneCell(sim.url));
  } finally {
    await sim.stop();
  }
  const f = '11 Many streams';
  const label = `C=${C} at ${ROOMY_STREAM_RATE} tok/s per stream`;
  const pick = (k: keyof Omit<ManyResult, 'note'>) => spread(results.map((r) => r[k]));
  const near = { text: '0.97–1.03 ×', ok: (v: number) => v >= 0.97 && v <= 1.03 };
  return [
    row(f, `${label}: streams held through the window / C`, pick('heldShare'), '×', 3, {
      text: '= 1 ×',
      ok: (v) => v === 1,
    }),
    row(f, `${label}: window tokens / simulator truth`, pick('totalVsTruth'), '×', 4, near),
    row(f, `${label}: total tok/s / profile rate`, pick('totalVsProfile'), '×', 4, near),
    // Each request's own rate, (tokens - 1) / (last - first token), reads above 16 from 8-token chunks: ~1.05 is right.
    row(
      f,
      `${label}: per-request tok/s / profile rate`,
      pick('perRequestVsProfile'),
      '×',
      4,
      undefined,
      results[results.length - 1].note,
    ),
  ];
}
