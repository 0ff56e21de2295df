/**
 * Figure 11, many streams: the real decode-cell runner at C = 1,024 against a simulator with room for every stream
 * at a known rate (tests/fixtures/sim-profiles/roomy-steady.json: 16 tok/s per stream in chunks of 8, whatever the
 * batch), at speed 1, with its ground truth (GET /sim/requests). As ratios: the cell's total tok/s against the tokens
 * the simulator emitted in the same window and against the profile's rate, its per-request rate against 16, and the
 * streams the simulator ran through the whole window against C. Then the ceiling, C = 4,096, at 10 tok/s per stream
 * one token per event (41K events a second, as a real server streams), to show what one client thread holds. The
 * client's own health in the window is in the notes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

async function oneCell(url: string, C: number, rate: number): Promise<ManyResult> {
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
    totalVsProfile: (cell.totalTokensPerSecond ?? 0) / (C * rate),
    perRequestVsProfile: (cell.perRequestTokensPerSecond ?? 0) / rate,
    heldShare: held / C,
    note: `cell ${cell.status}; ${(cell.totalTokensPerSecond ?? 0).toFixed(0)} tok/s measured, ${C * rate} by the profile; ${health}`,
  };
}

/** C streams against a simulator of this profile file, BENCH.repeats times. */
async function measure(profile: string, C: number, rate: number): Promise<ManyResult[]> {
  const sim = await startSim({
    profile,
    debug: true,
    args: ['--max-num-seqs', '4096', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  const results: ManyResult[] = [];
  try {
    for (let i = 0; i < BENCH.repeats; i++) results.push(await oneCell(sim.url, C, rate));
  } finally {
    await sim.stop();
  }
  return results;
}

/** The roomy profile at 10 tok/s per stream, one token per step and per event, in a file of its own. */
function fineProfile(dir: string): string {
  const p = JSON.parse(readFileSync(ROOMY_PROFILE, 'utf8')) as {
    name: string;
    scheduler: { streamInterval: number; tokensPerStep: number };
    decode: { baseMs: number };
  };
  p.name = 'roomy-fine';
  p.scheduler.streamInterval = 1;
  p.scheduler.tokensPerStep = 1;
  p.decode.baseMs = 100;
  const file = join(dir, 'roomy-fine.json');
  writeFileSync(file, JSON.stringify(p));
  return file;
}

export async function manyStreamsFigure(): Promise<Row[]> {
  const results = await measure(ROOMY_PROFILE, 1024, ROOMY_STREAM_RATE);
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-many-'));
  let ceiling: ManyResult[];
  try {
    ceiling = await measure(fineProfile(dir), 4096, 10);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const f = '11 Many streams';
  const label = `C=1024 at ${ROOMY_STREAM_RATE} tok/s per stream`;
  const top = 'C=4096 at 10 tok/s per stream, 1 token per event';
  const pick = (rs: ManyResult[], k: keyof Omit<ManyResult, 'note'>) => spread(rs.map((r) => r[k]));
  const near = { text: '0.97–1.03 ×', ok: (v: number) => v >= 0.97 && v <= 1.03 };
  const all = { text: '= 1 ×', ok: (v: number) => v === 1 };
  return [
    row(f, `${label}: streams held through the window / C`, pick(results, 'heldShare'), '×', 3, all),
    row(f, `${label}: window tokens / simulator truth`, pick(results, 'totalVsTruth'), '×', 4, near),
    row(f, `${label}: total tok/s / profile rate`, pick(results, 'totalVsProfile'), '×', 4, near),
    // Each request's own rate, (tokens - 1) / (last - first token), reads above 16 from 8-token chunks: ~1.05 is right.
    row(
      f,
      `${label}: per-request tok/s / profile rate`,
      pick(results, 'perRequestVsProfile'),
      '×',
      4,
      undefined,
      results[results.length - 1].note,
    ),
    row(f, `${top}: streams held through the window / C`, pick(ceiling, 'heldShare'), '×', 3, all),
    row(f, `${top}: window tokens / simulator truth`, pick(ceiling, 'totalVsTruth'), '×', 4, near),
    row(
      f,
      `${top}: total tok/s / profile rate`,
      pick(ceiling, 'totalVsProfile'),
      '×',
      4,
      near,
      ceiling[ceiling.length - 1].note,
    ),
  ];
}
