/**
 * Figure 11, many streams: the real decode-cell runner at C = 1,024 against a simulator with room for every stream
 * at a known 50 tok/s per stream, one token per event (as a real server streams: 51,200 events a second), at speed 1,
 * with its ground truth (GET /sim/requests). As ratios: the cell's total tok/s against the profile's rate and
 * against the tokens the simulator emitted in the same window, its median time between tokens against 20 ms, and
 * the streams the simulator ran through the whole window against C; measured with the client as it is (its streams
 * spread over threads, stream-shards.ts) and, alternately in the same run, on one thread, for the ratio of the two.
 * Then the ceiling, C = 4,096 at 10 tok/s per stream. The client's own health in the window is in the notes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Interrupt, ServerClock } from '../../../src-main/engine/bench/clock';
import { threadsFor } from '../../../src-main/engine/bench/client-threads';
import { runDecodeCell } from '../../../src-main/engine/bench/decode';
import { createHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import { chatBody } from '../../../src-main/engine/bench/request-bodies';
import { probeServer } from '../../../src-main/engine/server/probe';
import { ROOMY_PROFILE } from '../../helpers/paths';
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
  tbtVsProfile: number;
  heldShare: number;
  note: string;
}

async function oneCell(url: string, C: number, rate: number, threads?: number): Promise<ManyResult> {
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
    body: chatBody(http.model, buildMessages(`many ${Date.now()}`, 0), 100_000),
    windowSeconds: Math.max(5, BENCH.truthWindowSeconds * 2),
    stallSeconds: 30,
    readinessTimeoutSeconds: 60,
    stop: new Interrupt(),
    emit: () => undefined,
    threads,
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
    ? `client on ${h.threads ?? 1} thread(s): loop delay p99 ${(h.loopDelayP99Seconds * 1000).toFixed(1)} ms, waited ${((h.runDelayShare ?? 0) * 100).toFixed(1)}% of the window for a CPU, ${((h.cpuSecondsPerToken ?? 0) * 1e6).toFixed(2)} µs CPU/token`
    : 'no client health';
  return {
    totalVsTruth: (cell.outputTokens ?? 0) / Math.max(1, emitted),
    totalVsProfile: (cell.totalTokensPerSecond ?? 0) / (C * rate),
    tbtVsProfile: (cell.timeBetweenTokens?.p50 ?? 0) * rate,
    heldShare: held / C,
    note: `cell ${cell.status}; ${(cell.totalTokensPerSecond ?? 0).toFixed(0)} tok/s measured, ${C * rate} by the profile; ${health}`,
  };
}

/** The roomy profile at `rate` tok/s per stream, one token per step and per event, in a file of its own. */
function profileAt(dir: string, rate: number): string {
  const p = JSON.parse(readFileSync(ROOMY_PROFILE, 'utf8')) as {
    name: string;
    scheduler: { streamInterval: number; tokensPerStep: number };
    decode: { baseMs: number };
  };
  p.name = `roomy-${rate}`;
  p.scheduler.streamInterval = 1;
  p.scheduler.tokensPerStep = 1;
  p.decode.baseMs = 1000 / rate;
  const file = join(dir, `roomy-${rate}.json`);
  writeFileSync(file, JSON.stringify(p));
  return file;
}

/** C streams at `rate` against one simulator, BENCH.repeats times for each client shape, alternating. */
async function measure(C: number, rate: number, shapes: Array<number | undefined>): Promise<ManyResult[][]> {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-many-'));
  const sim = await startSim({
    profile: profileAt(dir, rate),
    debug: true,
    args: ['--max-num-seqs', '4096', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  const results: ManyResult[][] = shapes.map(() => []);
  try {
    for (let i = 0; i < BENCH.repeats; i++)
      for (const [k, threads] of shapes.entries()) results[k].push(await oneCell(sim.url, C, rate, threads));
  } finally {
    await sim.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return results;
}

export async function manyStreamsFigure(): Promise<Row[]> {
  const threads = threadsFor(1024, availableParallelism());
  // On one CPU the client is one thread either way: nothing to compare.
  const [spreadOut, single] = await measure(1024, 50, threads > 1 ? [undefined, 1] : [undefined]);
  const [ceiling] = await measure(4096, 10, [undefined]);
  const f = '11 Many streams';
  const label = `C=1024 at 50 tok/s per stream, 1 token per event, ${threads} thread(s)`;
  const top = `C=4096 at 10 tok/s per stream, ${threadsFor(4096, availableParallelism())} thread(s)`;
  const pick = (rs: ManyResult[], k: keyof Omit<ManyResult, 'note'>) => spread(rs.map((r) => r[k]));
  const within2 = { text: '0.98–1.02 ×', ok: (v: number) => v >= 0.98 && v <= 1.02 };
  const near = { text: '0.97–1.03 ×', ok: (v: number) => v >= 0.97 && v <= 1.03 };
  const all = { text: '= 1 ×', ok: (v: number) => v === 1 };
  const rows = [
    row(f, `${label}: streams held through the window / C`, pick(spreadOut, 'heldShare'), '×', 3, all),
    row(f, `${label}: window tokens / simulator truth`, pick(spreadOut, 'totalVsTruth'), '×', 4, within2),
    row(f, `${label}: total tok/s / profile rate`, pick(spreadOut, 'totalVsProfile'), '×', 4, within2),
    row(
      f,
      `${label}: median time between tokens / 20 ms`,
      pick(spreadOut, 'tbtVsProfile'),
      '×',
      4,
      within2,
      spreadOut[spreadOut.length - 1].note,
    ),
  ];
  if (single)
    rows.push(
      row(
        f,
        'C=1024 at 50 tok/s, one thread for comparison: total tok/s / profile rate',
        pick(single, 'totalVsProfile'),
        '×',
        4,
        undefined,
        single[single.length - 1].note,
      ),
      row(
        f,
        'C=1024 at 50 tok/s, one thread for comparison: median time between tokens / 20 ms',
        pick(single, 'tbtVsProfile'),
        '×',
        4,
      ),
    );
  rows.push(
    row(f, `${top}: streams held through the window / C`, pick(ceiling, 'heldShare'), '×', 3, all),
    row(f, `${top}: window tokens / simulator truth`, pick(ceiling, 'totalVsTruth'), '×', 4, near),
    row(f, `${top}: total tok/s / profile rate`, pick(ceiling, 'totalVsProfile'), '×', 4, near, ceiling[0].note),
  );
  return rows;
}
