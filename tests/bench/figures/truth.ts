/**
 * Figure 2, timing truth: the real decode-cell runner against the simulator at speed 1 with its
 * ground truth (GET /sim/requests: the time each write of tokens was handed to the socket), at
 * C = 1, 16, 128, and C = 128 again with the machine's other core spinning.
 *  - time between tokens: per request, the client's (last - first) / (tokens - 1) against the
 *    same from the server's emission times (up to the tokens the client received);
 *  - TTFT: the client's first-token time against the server's first emission (same clock, so
 *    the error is what the client adds: delivery and parsing);
 *  - total tok/s: tokens the client counted in its window against tokens emitted in it.
 */
import { Interrupt, ServerClock } from '../../../src-main/engine/bench/clock';
import { runDecodeCell } from '../../../src-main/engine/bench/decode';
import { createHttp, type BenchHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import { ChatStream } from '../../../src-main/engine/bench/stream';
import { probeServer } from '../../../src-main/engine/server/probe';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { busyCore } from '../lib/proc';
import { quantile, spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

interface TruthRequest {
  id: string;
  first_token_ms: number | null;
  emissions: Array<[number, number]>;
}

interface CaseResult {
  tbtMedian: number;
  tbtP99: number;
  ttftMedian: number;
  totalErrorPct: number;
  note: string;
}

export async function truthFigure(): Promise<Row[]> {
  const rows: Row[] = [];
  const sim = await startSim({ debug: true, args: ['--served-model-name', 'fara', '--disable-uvicorn-access-log'] });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const http = createHttp(t.data);
    const cases: Array<{ c: number; busy: boolean }> = [
      { c: 1, busy: false },
      { c: 16, busy: false },
      { c: 128, busy: false },
      { c: 128, busy: true },
    ];
    // Warm the path first, as a run's warm-up does (a fresh process's first request pays for JIT).
    await new Promise<ChatStream>(
      (onEnd) =>
        new ChatStream(http, {
          body: JSON.stringify({
            model: http.model,
            messages: buildMessages('truth warm-up', 0),
            max_tokens: 64,
            stream: true,
          }),
          onEnd,
        }),
    );
    for (const { c, busy } of cases) {
      const results: CaseResult[] = [];
      for (let rep = 0; rep < BENCH.repeats; rep++) results.push(await oneCase(sim.url, http, c, busy));
      const label = `C=${c}${busy ? ', other core busy' : ''}`;
      const f = '2 Timing truth';
      const pick = (k: keyof Omit<CaseResult, 'note'>) => spread(results.map((r) => r[k]));
      rows.push(
        row(f, `${label}: TBT median abs error`, pick('tbtMedian'), 'ms', 4, { text: '≤ 0.1 ms', ok: (v) => v <= 0.1 }),
      );
      rows.push(row(f, `${label}: TBT p99 abs error`, pick('tbtP99'), 'ms', 4, { text: '≤ 1 ms', ok: (v) => v <= 1 }));
      rows.push(
        row(f, `${label}: TTFT median error`, pick('ttftMedian'), 'ms', 3, { text: '≤ 1 ms', ok: (v) => v <= 1 }),
      );
      rows.push(
        row(
          f,
          `${label}: total tok/s error`,
          pick('totalErrorPct'),
          '%',
          3,
          { text: '≤ 0.5 %', ok: (v) => v <= 0.5 },
          results[results.length - 1].note,
        ),
      );
    }
    await http.agent.close();
  } finally {
    await sim.stop();
  }
  return rows;
}

/** One decode cell at C with its errors against the ground truth. */
async function oneCase(simUrl: string, http: BenchHttp, c: number, busy: boolean): Promise<CaseResult> {
  await fetch(`${simUrl}/sim/requests`, { method: 'DELETE' });
  const spinner = busy ? busyCore() : null;
  let out: Awaited<ReturnType<typeof runDecodeCell>>;
  try {
    out = await runDecodeCell({
      http,
      engine: 'vllm',
      metrics: true,
      clock: new ServerClock(1),
      context: 0,
      concurrency: c,
      body: JSON.stringify({
        model: http.model,
        messages: buildMessages(`truth ${c} ${busy} ${Date.now()}`, 0),
        max_tokens: 4096,
        stream: true,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      }),
      windowSeconds: BENCH.truthWindowSeconds,
      stallSeconds: 30,
      readinessTimeoutSeconds: 60,
      stop: new Interrupt(),
      emit: () => undefined,
    });
  } finally {
    spinner?.stop();
  }
  const truth = ((await (await fetch(`${simUrl}/sim/requests`)).json()) as { requests: TruthRequest[] }).requests;
  const byId = new Map(truth.map((r) => [r.id, r]));
  const tbtErr: number[] = [];
  const ttftErr: number[] = [];
  for (const s of out.streams) {
    const r = s.responseId ? byId.get(s.responseId) : undefined;
    if (!r || s.tokens < 2 || r.first_token_ms === null || r.emissions.length === 0) continue;
    let n = 0;
    let last = r.emissions[0][0];
    for (const [at, k] of r.emissions) {
      if (n >= s.tokens) break;
      n += k;
      last = at;
    }
    if (n < 2) continue;
    const truthTbt = (last - r.emissions[0][0]) / (n - 1);
    const mineTbt = (s.lastTokenAt - s.firstTokenAt) / (s.tokens - 1);
    tbtErr.push(Math.abs(mineTbt - truthTbt));
    ttftErr.push(Math.abs(s.firstTokenAt - r.first_token_ms));
  }
  const w = out.window;
  let truthTokens = 0;
  if (w)
    for (const r of truth) for (const [at, k] of r.emissions) if (at >= w.startMs && at <= w.endMs) truthTokens += k;
  const mine = out.cell.outputTokens ?? 0;
  const note = `${tbtErr.length} requests; ${mine.toLocaleString('en-US')} / ${truthTokens.toLocaleString('en-US')} window tokens (client / truth); cell ${out.cell.status}`;
  return {
    tbtMedian: quantile(tbtErr, 0.5),
    tbtP99: quantile(tbtErr, 0.99),
    ttftMedian: quantile(ttftErr, 0.5),
    totalErrorPct: (Math.abs(mine - truthTokens) / Math.max(1, truthTokens)) * 100,
    note,
  };
}
