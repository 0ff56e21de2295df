/**
 * `npm run bench:sim`: how many streamed tokens per second the simulator (firehose profile) serves,
 * and how many per CPU-second of the simulator process (the "one core" figure; goal >= 100,000).
 * The client runs in this process, the server in its own, so the server's CPU time is its own.
 */
import { request } from 'node:http';
import { readFileSync } from 'node:fs';
import { predict } from '../../src-main/engine/sim/model';
import { BUILTIN_PROFILES } from '../../src-main/engine/sim/profile';
import { startSim } from '../helpers/sim';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

/** utime + stime of a process, in seconds (Linux /proc). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One worker: streams requests back to back until the deadline; returns tokens counted from usage. */
function worker(url: string, deadline: number, maxTokens: number): Promise<number> {
  return new Promise((resolve) => {
    let total = 0;
    const next = () => {
      if (Date.now() >= deadline) return resolve(total);
      const body = JSON.stringify({
        messages: [{ role: 'user', content: 'Write a long article.' }],
        stream: true,
        max_tokens: maxTokens,
        ignore_eos: true,
        stream_options: { include_usage: true, continuous_usage_stats: true },
      });
      const req = request(
        `${url}/v1/chat/completions`,
        { method: 'POST', headers: { 'content-type': 'application/json' } },
        (res) => {
          let last = 0;
          let tail = '';
          res.setEncoding('latin1');
          res.on('data', (d: string) => {
            // Only the newest cumulative usage matters: look at the end of each read.
            const s = tail + d;
            const i = s.lastIndexOf('"completion_tokens":');
            if (i >= 0) {
              const m = /^"completion_tokens":(\d+)/.exec(s.slice(i));
              if (m) last = Number(m[1]);
            }
            tail = s.slice(-40);
            if (Date.now() >= deadline) req.destroy();
          });
          const done = () => {
            total += last;
            next();
          };
          res.on('end', done);
          res.on('close', () => (res.complete ? undefined : ((total += last), resolve(total))));
        },
      );
      req.on('error', () => resolve(total));
      req.end(body);
    };
    next();
  });
}

export interface SimThroughput {
  tokensPerSecond: number;
  /** Tokens per second of simulator CPU time: the "one core" figure. */
  tokensPerCpuSecond: number;
  /** Simulator CPU time over wall time. */
  cpuShare: number;
}

/** One firehose run at `concurrency` streams for `seconds`; prints a line and returns the figures (npm run bench reuses it). */
export async function run(
  label: string,
  extra: string[],
  concurrency: number,
  seconds = SECONDS,
): Promise<SimThroughput> {
  const sim = await startSim({
    profile: 'firehose',
    args: ['--disable-uvicorn-access-log', '--disable-log-stats', ...extra],
  });
  try {
    const cpu0 = cpuSeconds(sim.pid);
    const t0 = performance.now();
    const deadline = Date.now() + seconds * 1000;
    const counts = await Promise.all(Array.from({ length: concurrency }, () => worker(sim.url, deadline, 65536)));
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(sim.pid) - cpu0;
    const tokens = counts.reduce((a, b) => a + b, 0);
    const perCpu = tokens / Math.max(cpu, 1e-3);
    console.log(
      `${label.padEnd(34)} C=${String(concurrency).padStart(3)}  ${Math.round(tokens / wall)
        .toLocaleString('en-US')
        .padStart(10)} tok/s wall  ` +
        `${Math.round(perCpu).toLocaleString('en-US').padStart(10)} tok per sim CPU-second  (sim CPU ${((cpu / wall) * 100).toFixed(0)}% of one core, ${tokens.toLocaleString('en-US')} tokens in ${wall.toFixed(1)} s)`,
    );
    return { tokensPerSecond: tokens / wall, tokensPerCpuSecond: perCpu, cpuShare: cpu / wall };
  } finally {
    await sim.stop();
  }
}

/**
 * Timing truth at speed 1 on the default profile: C streams at an 8K context; the server's own record of
 * write times (GET /sim/requests) against the model's step time, and the total rate against predict().
 */
async function timing(concurrency: number): Promise<void> {
  const profile = BUILTIN_PROFILES['rtx-pro-6000-fara-4b-bf16'];
  const sim = await startSim({
    debug: true,
    args: ['--disable-uvicorn-access-log', '--max-model-len', '262144', '--gpu-memory-utilization', '0.83'],
  });
  try {
    const prompt = ' abc'.repeat(8192);
    const cpu0 = cpuSeconds(sim.pid);
    const t0 = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, (_, i) =>
        fetch(`${sim.url}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ prompt: `${i}${prompt}`, max_tokens: 600, ignore_eos: true, stream: true }),
        }).then((r) => r.text()),
      ),
    );
    const wall = (performance.now() - t0) / 1000;
    const cpu = cpuSeconds(sim.pid) - cpu0;
    const recs = (await (await fetch(`${sim.url}/sim/requests`)).json()).requests as {
      emissions: [number, number][];
    }[];
    // Steady part: from the moment the last request got its first token to the first request's end.
    const from = Math.max(...recs.map((r) => r.emissions[0][0]));
    const to = Math.min(...recs.map((r) => r.emissions.at(-1)![0]));
    let tokens = 0;
    const gaps: number[] = [];
    for (const r of recs) {
      const em = r.emissions.filter((e) => e[0] >= from && e[0] <= to);
      for (let i = 1; i < em.length; i++) {
        tokens += em[i][1];
        gaps.push((em[i][0] - em[i - 1][0]) / em[i][1]);
      }
    }
    gaps.sort((a, b) => a - b);
    const q = (p: number) => gaps[Math.min(gaps.length - 1, Math.floor(p * gaps.length))].toFixed(2);
    const measured = tokens / ((to - from) / 1000);
    // Context held during the steady part: 8K prompt + about 300 generated tokens.
    const model = predict(profile, 8192, concurrency, { maxOutput: 600 });
    console.log(
      `timing, fara profile, speed 1, C=${String(concurrency).padStart(2)} at 8K: ${measured.toFixed(1)} tok/s total (model ${model.decodeTotalTokPerSec.toFixed(1)}), ` +
        `ms per token p50 ${q(0.5)} p99 ${q(0.99)} max ${q(1)} (model step ${(model.decodeStepSeconds * 1000).toFixed(2)} ms), sim CPU ${((cpu / wall) * 100).toFixed(0)}% of one core`,
    );
  } finally {
    await sim.stop();
  }
}

async function main(): Promise<void> {
  console.log(
    `simulator throughput, firehose profile, ${SECONDS} s per line (goal: >= 100,000 tok per sim CPU-second)`,
  );
  for (const c of [1, 8, 64]) await run('8 tokens per chunk (profile default)', [], c);
  for (const c of [1, 64]) await run('1 token per chunk (--stream-interval 1)', ['--stream-interval', '1'], c);
  for (const c of [1, 64]) await timing(c);
}

if (require.main === module) void main();
