/** Figure 8, simulator throughput: the firehose profile served to 64 streams (tests/bench/sim-throughput.ts). */
import { run } from '../sim-throughput';
import { BENCH } from '../lib/config';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

export async function simFigure(): Promise<Row[]> {
  const perCpu: number[] = [];
  const wall: number[] = [];
  const perCpu1: number[] = [];
  for (let i = 0; i < BENCH.repeats; i++) {
    const r = await run('firehose, 8 tokens per chunk', [], 64, BENCH.simSeconds);
    perCpu.push(r.tokensPerCpuSecond);
    wall.push(r.tokensPerSecond);
    // One token per chunk: the simulator's per-write cost, as a real vLLM stream (stream interval 1) needs.
    perCpu1.push(
      (await run('firehose, 1 token per chunk', ['--stream-interval', '1'], 64, BENCH.simSeconds)).tokensPerCpuSecond,
    );
  }
  const f = '8 Simulator';
  return [
    row(f, 'firehose, C=64: tokens per simulator CPU-second', spread(perCpu), 'tok/s', 0, {
      text: '≥ 100,000 tok/s on one core',
      ok: (v) => v >= 100_000,
    }),
    row(
      f,
      'firehose --stream-interval 1, C=64: tokens per simulator CPU-second',
      spread(perCpu1),
      'tok/s',
      0,
      undefined,
      'one SSE event per token: the per-chunk cost',
    ),
    row(
      f,
      'firehose, C=64: tokens served per wall second',
      spread(wall),
      'tok/s',
      0,
      undefined,
      'client (this process) shares the 2 cores',
    ),
  ];
}
