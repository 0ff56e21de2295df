/**
 * Figure 1, client absorb rate: the real client path (ChatStream: SSE parser, usage counting,
 * loop detector) against the firehose simulator at C = 128, 256, 512, beside a raw client that
 * only reads bytes (the ceiling), in the same run. The simulator runs in its own process, so
 * this process's CPU time is the client's. Both clients send the same request body; a short
 * unmeasured pass of each warms both processes first (the first run measured was otherwise the
 * real client's at C=128, against a simulator not yet compiled), and repeats alternate which goes first.
 */
import type { Dispatcher } from 'undici';
import { createHttp, type BenchHttp } from '../../../src-main/engine/bench/http';
import { buildMessages } from '../../../src-main/engine/bench/prompts';
import { ChatStream, nowMs } from '../../../src-main/engine/bench/stream';
import { probeServer } from '../../../src-main/engine/server/probe';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { cpuMicros } from '../lib/proc';
import { sleep, spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

/** The run's default max output: requests end and restart as in a real cell. */
const MAX_TOKENS = 4096;
const RAMP_MS = 500;
/** The unmeasured warm-up pass of each client. */
const WARMUP_SECONDS = 1;

/** The request both clients send. */
function body(model: string): string {
  return JSON.stringify({
    model,
    messages: buildMessages('absorb', 0),
    max_tokens: MAX_TOKENS,
    stream: true,
    ignore_eos: true,
    stream_options: { include_usage: true, continuous_usage_stats: true },
  });
}

interface Absorbed {
  tokens: number;
  bytes: number;
  cpuMicros: number;
  wallSeconds: number;
}

/** C ChatStreams kept in flight for `seconds`, restarted as they end. */
async function absorbReal(http: BenchHttp, c: number, seconds: number): Promise<Absorbed> {
  const streams: ChatStream[] = [];
  let running = true;
  const b = body(http.model);
  const start = () => {
    streams.push(new ChatStream(http, { body: b, detectLoops: true, onEnd: () => running && start() }));
  };
  for (let i = 0; i < c; i++) start();
  await sleep(RAMP_MS);
  const tokens0 = new Map(streams.map((s) => [s, s.tokens]));
  const bytes0 = streams.reduce((a, s) => a + s.bytesReceived, 0);
  const cpu0 = cpuMicros();
  const t0 = nowMs();
  await sleep(seconds * 1000);
  const wallSeconds = (nowMs() - t0) / 1000;
  const cpu = cpuMicros() - cpu0;
  let tokens = 0;
  for (const s of streams) tokens += s.tokens - (tokens0.get(s) ?? 0);
  const bytes = streams.reduce((a, s) => a + s.bytesReceived, 0) - bytes0;
  running = false;
  for (const s of streams) s.cancel();
  return { tokens, bytes, cpuMicros: cpu, wallSeconds };
}

/** The ceiling: the same requests through the same undici agent, bytes counted and dropped. */
async function absorbRaw(http: BenchHttp, c: number, seconds: number): Promise<Omit<Absorbed, 'tokens'>> {
  let bytes = 0;
  let running = true;
  const controllers = new Set<Dispatcher.DispatchController>();
  const b = body(http.model);
  const start = () => {
    let ctl: Dispatcher.DispatchController | null = null;
    http.agent.dispatch(
      {
        origin: http.origin,
        path: `${http.prefix}/v1/chat/completions`,
        method: 'POST',
        headers: http.headers,
        body: b,
      },
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
  await sleep(RAMP_MS);
  const b0 = bytes;
  const cpu0 = cpuMicros();
  const t0 = nowMs();
  await sleep(seconds * 1000);
  const wallSeconds = (nowMs() - t0) / 1000;
  const cpu = cpuMicros() - cpu0;
  const got = bytes - b0;
  running = false;
  for (const ctl of controllers) ctl.abort(new Error('done'));
  return { bytes: got, cpuMicros: cpu, wallSeconds };
}

export async function absorbFigure(): Promise<Row[]> {
  const rows: Row[] = [];
  const fire = await startSim({
    profile: 'firehose',
    args: ['--served-model-name', 'firehose', '--disable-uvicorn-access-log', '--disable-log-stats'],
  });
  try {
    const t = await probeServer({ baseUrl: fire.url });
    if (!t.ok) throw new Error(t.error);
    const http = createHttp(t.data);
    // Unmeasured: both processes compile their hot paths here, not in the first measured run.
    await absorbReal(http, 128, WARMUP_SECONDS);
    await sleep(300);
    await absorbRaw(http, 128, WARMUP_SECONDS);
    await sleep(300);
    for (const c of [128, 256, 512]) {
      const rate: number[] = [];
      const cpu: number[] = [];
      const ratio: number[] = [];
      const rawCpu: number[] = [];
      for (let i = 0; i < BENCH.repeats; i++) {
        // Alternating which client goes first cancels a drift in the machine's load across a repeat pair.
        let real: Absorbed;
        let raw: Omit<Absorbed, 'tokens'>;
        if (i % 2 === 0) {
          real = await absorbReal(http, c, BENCH.absorbSeconds);
          await sleep(300);
          raw = await absorbRaw(http, c, BENCH.absorbSeconds);
        } else {
          raw = await absorbRaw(http, c, BENCH.absorbSeconds);
          await sleep(300);
          real = await absorbReal(http, c, BENCH.absorbSeconds);
        }
        await sleep(300);
        // The raw client cannot count tokens: it gets the real client's bytes per token.
        const bytesPerToken = real.bytes / Math.max(1, real.tokens);
        const rawTokens = raw.bytes / bytesPerToken;
        const realRate = real.tokens / real.wallSeconds;
        rate.push(realRate);
        cpu.push(real.cpuMicros / Math.max(1, real.tokens));
        rawCpu.push(raw.cpuMicros / Math.max(1, rawTokens));
        ratio.push(realRate / (rawTokens / raw.wallSeconds));
      }
      const f = '1 Client absorb';
      const at128 = c === 128;
      rows.push(
        row(
          f,
          `C=${c}: tokens absorbed`,
          spread(rate),
          'tok/s',
          0,
          at128 ? { text: '≥ 200,000 tok/s', ok: (v) => v >= 200_000 } : undefined,
        ),
      );
      rows.push(
        row(
          f,
          `C=${c}: client CPU per token`,
          spread(cpu),
          'µs',
          2,
          at128 ? { text: '≤ 5 µs', ok: (v) => v <= 5 } : undefined,
          `raw reader ${spread(rawCpu).median.toFixed(2)} µs/token`,
        ),
      );
      rows.push(row(f, `C=${c}: client / raw byte reader rate`, spread(ratio), '×', 2));
    }
    await http.agent.close();
  } finally {
    await fire.stop();
  }
  return rows;
}
