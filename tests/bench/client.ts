/**
 * `npm run bench:client`: the benchmark client's own limits, as figures.
 *
 * 1. Absorb rate against the firehose simulator at C = 128, 256, 512: tokens per second the
 *    real client path (ChatStream: SSE parser, usage counting, loop detector) takes in, its CPU
 *    per token, and the same for a raw client that only reads bytes (the ceiling), in the same run.
 *    Goals at C=128: >= 200,000 tokens/s, <= 5 µs of client CPU per token.
 * 2. Timing truth against profile (a) at speed 1 with /sim/requests ground truth, at C = 1, 16
 *    and 128, through the real decode-cell runner: per-request time between tokens and TTFT
 *    errors, and window tokens. Goals: TBT median error <= 0.1 ms and p99 <= 1 ms, TTFT median
 *    error <= 1 ms, total tok/s within 0.5%.
 * 3. Overhead (BENCH_PARTS=overhead, about 5 minutes): wall time of a whole 3 x 3 run with 30 s
 *    windows (warm-ups, prompt sizing, scouts, gates, cancels, the worker process) divided by
 *    the sum of its windows. Goal <= 1.15.
 * BENCH_PARTS picks parts (default "absorb,truth"). The simulator runs in its own process, so
 * this process's CPU time is the client's.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Dispatcher } from 'undici';
import { startRun } from '../../src-main/bench/start-run';
import { Interrupt, ServerClock } from '../../src-main/bench/clock';
import { runDecodeCell } from '../../src-main/bench/decode';
import { createHttp, type BenchHttp } from '../../src-main/bench/http';
import { buildMessages } from '../../src-main/bench/prompts';
import { ChatStream, nowMs } from '../../src-main/bench/stream';
import { probeServer } from '../../src-main/server/probe';
import { startSim } from '../helpers/sim';

const ABSORB_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'absorb,truth').split(','));
/** The run's default max output: requests end and restart as in a real cell. */
const MAX_TOKENS = 4096;
const fmt = (v: number, d = 0) => v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });

function body(model: string, maxTokens: number, tag: string): string {
  return JSON.stringify({
    model,
    messages: buildMessages(tag, 0),
    max_tokens: maxTokens,
    stream: true,
    ignore_eos: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

/** The real client path: C ChatStreams kept in flight for `seconds`. */
async function absorbReal(http: BenchHttp, c: number, seconds: number): Promise<{ tokens: number; bytes: number; cpu: number; wall: number }> {
  const streams: ChatStream[] = [];
  let running = true;
  const b = body(http.model, MAX_TOKENS, 'absorb');
  const start = () => {
    const s = new ChatStream(http, { body: b, detectLoops: true, onEnd: () => running && start() });
    streams.push(s);
  };
  for (let i = 0; i < c; i++) start();
  await new Promise((r) => setTimeout(r, 500)); // ramp
  for (const s of streams) s.tokensAtOpen = s.tokens;
  const bytes0 = streams.reduce((a, s) => a + s.bytesReceived, 0);
  const cpu0 = cpuMicros();
  const t0 = nowMs();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const t1 = nowMs();
  const cpu = cpuMicros() - cpu0;
  let tokens = 0;
  for (const s of streams) tokens += s.tokens - s.tokensAtOpen;
  const bytes = streams.reduce((a, s) => a + s.bytesReceived, 0) - bytes0;
  running = false;
  for (const s of streams) s.cancel();
  return { tokens, bytes, cpu, wall: (t1 - t0) / 1000 };
}

/** The ceiling: the same requests, bytes read and dropped. */
async function absorbRaw(http: BenchHttp, c: number, seconds: number): Promise<{ bytes: number; cpu: number; wall: number }> {
  let bytes = 0;
  let running = true;
  const controllers = new Set<Dispatcher.DispatchController>();
  const b = body(http.model, MAX_TOKENS, 'raw');
  const start = () => {
    let ctl: Dispatcher.DispatchController | null = null;
    http.agent.dispatch(
      { origin: http.origin, path: '/v1/chat/completions', method: 'POST', headers: http.headers, body: b },
      {
        onRequestStart(controller) {
          ctl = controller;
          controllers.add(controller);
        },
        onResponseData(_c, chunk) {
          bytes += chunk.length;
        },
        onResponseEnd() {
          if (ctl) controllers.delete(ctl);
          if (running) start();
        },
        onResponseError() {
          if (ctl) controllers.delete(ctl);
        },
      },
    );
  };
  for (let i = 0; i < c; i++) start();
  await new Promise((r) => setTimeout(r, 500));
  const b0 = bytes;
  const cpu0 = cpuMicros();
  const t0 = nowMs();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const t1 = nowMs();
  const cpu = cpuMicros() - cpu0;
  const got = bytes - b0;
  running = false;
  for (const ctl of controllers) ctl.abort(new Error('done'));
  return { bytes: got, cpu, wall: (t1 - t0) / 1000 };
}

interface TruthRequest {
  id: string;
  arrival_ms: number;
  first_token_ms: number | null;
  emissions: Array<[number, number]>;
}

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const pos = (s.length - 1) * q;
  return s[Math.floor(pos)] + (s[Math.ceil(pos)] - s[Math.floor(pos)]) * (pos - Math.floor(pos));
};

async function overhead(): Promise<void> {
  const sim = await startSim({ args: ['--served-model-name', 'fara'] });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const file = join(mkdtempSync(join(tmpdir(), 'sm-overhead-')), 'o.speedmatrix.json');
    const started = nowMs();
    const handle = startRun({ target: t.data, config: { contexts: [0, 8192, 32768], concurrency: [1, 4, 16], prefillContexts: [8192, 32768] }, sessionFile: file, onEvent: () => undefined });
    const session = await handle.done;
    const wall = (nowMs() - started) / 1000;
    const windows = session.cells.reduce((a, c) => a + (c.windowSeconds ?? 0), 0);
    process.stdout.write(`\nOverhead, 3 x 3 matrix, 30 s windows, profile (a) at speed 1\n  wall ${fmt(wall, 1)} s / windows ${fmt(windows, 1)} s = ${fmt(wall / windows, 3)} (statuses: ${session.cells.map((c) => c.status).join(', ')})\n`);
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  if (PARTS.has('absorb')) await absorb();
  if (PARTS.has('truth')) await truth();
  if (PARTS.has('overhead')) await overhead();
}

async function absorb(): Promise<void> {
  const fire = await startSim({ profile: 'firehose', args: ['--served-model-name', 'firehose'] });
  try {
    const t = await probeServer({ baseUrl: fire.url });
    if (!t.ok) throw new Error(t.error);
    const http = createHttp(t.data);
    process.stdout.write(`Absorb rate, firehose simulator (8 tokens per chunk), requests of ${MAX_TOKENS} tokens restarted as they end, ${ABSORB_SECONDS} s per run\n`);
    process.stdout.write('   C | client tok/s | client µs CPU/token | raw-reader tok/s (equiv.) | raw µs CPU/token | client/raw\n');
    for (const c of [128, 256, 512]) {
      const real = await absorbReal(http, c, ABSORB_SECONDS);
      await new Promise((r) => setTimeout(r, 500));
      const raw = await absorbRaw(http, c, ABSORB_SECONDS);
      await new Promise((r) => setTimeout(r, 500));
      const bytesPerToken = real.bytes / Math.max(1, real.tokens);
      const realRate = real.tokens / real.wall;
      const rawRate = raw.bytes / bytesPerToken / raw.wall;
      const rawTokens = raw.bytes / bytesPerToken;
      process.stdout.write(
        `${String(c).padStart(4)} | ${fmt(realRate).padStart(12)} | ${fmt(real.cpu / Math.max(1, real.tokens), 2).padStart(19)} | ${fmt(rawRate).padStart(25)} | ${fmt(raw.cpu / Math.max(1, rawTokens), 2).padStart(16)} | ${fmt(realRate / rawRate, 2).padStart(10)}\n`,
      );
    }
    await http.agent.close();
  } finally {
    await fire.stop();
  }
}

async function truth(): Promise<void> {
  const sim = await startSim({ debug: true, args: ['--served-model-name', 'fara'] });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const http = createHttp(t.data);
    process.stdout.write('\nTiming truth, profile (a) at speed 1, context 0, 5 s windows, errors vs /sim/requests\n');
    process.stdout.write(
      '   C | TBT median err | TBT p99 err | first token: receive - emit (median) | TTFT vs server-side TTFT (median; adds upload + server parsing) | window tokens (client / truth) | total tok/s err\n',
    );
    for (const c of [1, 16, 128]) {
      const out = await runDecodeCell({
        http,
        engine: 'vllm',
        metrics: true,
        clock: new ServerClock(1),
        context: 0,
        concurrency: c,
        body: body(http.model, 4096, `truth ${c} ${Date.now()}`),
        windowSeconds: 5,
        stallSeconds: 30,
        readinessTimeoutSeconds: 60,
        stop: new Interrupt(),
        emit: () => undefined,
      });
      const truth = ((await (await fetch(`${sim.url}/sim/requests`)).json()) as { requests: TruthRequest[] }).requests;
      const byId = new Map(truth.map((r) => [r.id, r]));
      const tbtErr: number[] = [];
      const ttftErr: number[] = [];
      const firstLag: number[] = [];
      for (const s of out.streams) {
        const r = s.responseId ? byId.get(s.responseId) : undefined;
        if (!r || s.tokens < 2 || r.first_token_ms === null) continue;
        // Truth up to the tokens this client received (the server may emit a few more before the cancel lands).
        let n = 0;
        let last = r.emissions[0][0];
        for (const [at, k] of r.emissions) {
          if (n >= s.tokens) break;
          n += k;
          last = at;
        }
        const truthTbt = (last - r.emissions[0][0]) / (n - 1);
        const mineTbt = (s.lastTokenAt - s.firstTokenAt) / (s.tokens - 1);
        tbtErr.push(Math.abs(mineTbt - truthTbt));
        ttftErr.push(Math.abs(s.firstTokenAt - s.sentAt - (r.first_token_ms - r.arrival_ms)));
        firstLag.push(s.firstTokenAt - r.emissions[0][0]);
      }
      const w = out.window;
      let truthTokens = 0;
      if (w) for (const r of truth) for (const [at, k] of r.emissions) if (at >= w.startMs && at <= w.endMs) truthTokens += k;
      const mine = out.cell.outputTokens ?? 0;
      process.stdout.write(
        `${String(c).padStart(4)} | ${`${fmt(quantile(tbtErr, 0.5), 4)} ms`.padStart(14)} | ${`${fmt(quantile(tbtErr, 0.99), 4)} ms`.padStart(11)} | ${`${fmt(quantile(firstLag, 0.5), 3)} ms`.padStart(36)} | ${`${fmt(quantile(ttftErr, 0.5), 3)} ms`.padStart(62)} | ${`${fmt(mine)} / ${fmt(truthTokens)}`.padStart(30)} | ${`${fmt((Math.abs(mine - truthTokens) / Math.max(1, truthTokens)) * 100, 3)} %`.padStart(15)}\n`,
      );
      await fetch(`${sim.url}/sim/requests`, { method: 'DELETE' });
    }
    await http.agent.close();
  } finally {
    await sim.stop();
  }
}

main().catch((e) => {
  process.stderr.write(`bench:client failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
