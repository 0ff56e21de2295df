/**
 * A decode cell's streams spread over worker threads (docs/method.md, "The client over threads"): one
 * event loop cannot read a thousand SSE streams and keep its timestamps honest, so past
 * STREAMS_PER_THREAD (client-threads.ts) each thread (stream-shard-main.ts) holds its share with its
 * own connection pool, timestamping at read.
 * The cell reads their running counts from shared memory as they change, and merges what they saw.
 */
import type { Worker } from 'node:worker_threads';
import { startThread } from '../../platform/runtime/node-entry';
import {
  FAILED_AND_REPLACED,
  type LoadInput,
  type LoadOutcome,
  type StreamLoad,
  TALLY,
  TALLY_SLOTS,
} from './cell-load';
import type { Interrupt } from './clock';
import { type ClientHealthReading, startClientHealth } from './client-health';
import { mergeHealth, shareSizes } from './client-threads';
import { httpSettings } from './http';
import type { FromShard, ShardSetup, ToShard } from './shard-protocol';
import type { BenchEvent } from './types';

interface Shard {
  thread: Worker;
  tally: Float64Array;
  workers: number;
  /** Resolvers waiting for the thread's next answer of each kind. */
  health: Array<(r: ClientHealthReading | null) => void>;
  outcome: Array<(o: LoadOutcome | null) => void>;
  gone: boolean;
}

const EMPTY: LoadOutcome = {
  streams: [],
  looped: null,
  fatal: null,
  connectionLost: false,
  failed: 0,
  firstError: null,
  fused: null,
  turnarounds: [],
};

/** The cell's load held by several threads; the same questions as a CellLoad, answered from their counts. */
export class ShardedLoad implements StreamLoad {
  fatal: string | null = null;
  private readonly shards: Shard[] = [];
  private health: ReturnType<typeof startClientHealth> | null = null;
  private loggedFailure = false;

  constructor(
    private readonly x: LoadInput,
    private readonly stopCell: Interrupt,
    private readonly threads: number,
  ) {}

  start(): void {
    shareSizes(this.x.workers, this.threads).forEach((workers, part) =>
      this.shards.push(this.startShard(workers, part)),
    );
  }

  private startShard(workers: number, part: number): Shard {
    const tally = new SharedArrayBuffer(TALLY_SLOTS * Float64Array.BYTES_PER_ELEMENT);
    const { http, clock, context, concurrency, stallSeconds, body } = this.x;
    const setup: ShardSetup = {
      http: httpSettings(http),
      load: { context, concurrency, stallSeconds, body, workers, part },
      clockSpeed: clock.speed,
      tally,
    };
    const shard: Shard = {
      thread: startThread('stream-shard', setup),
      tally: new Float64Array(tally),
      workers,
      health: [],
      outcome: [],
      gone: false,
    };
    shard.thread.on('message', (m: FromShard) => this.heard(shard, m));
    shard.thread.on('error', (e) =>
      this.lost(shard, `a thread holding ${workers} of the streams failed: ${e.message}`),
    );
    shard.thread.on('exit', () => this.lost(shard, `a thread holding ${workers} of the streams ended early`));
    return shard;
  }

  private heard(shard: Shard, m: FromShard): void {
    if (m.type === 'stop') this.stopCell.fire();
    else if (m.type === 'event') this.forward(m.event);
    else if (m.type === 'health') shard.health.shift()?.(m.reading);
    else shard.outcome.shift()?.(m.outcome);
  }

  /** A thread's log lines, but the "a request failed" line once for the cell, as one thread says it. */
  private forward(event: BenchEvent): void {
    const failure = event.type === 'log' && event.message.includes(FAILED_AND_REPLACED);
    if (failure && this.loggedFailure) return;
    if (failure) this.loggedFailure = true;
    this.x.emit(event);
  }

  /** A thread that died: the cell cannot stand without its streams. */
  private lost(shard: Shard, why: string): void {
    if (shard.gone) return;
    shard.gone = true;
    this.fatal ??= `The client failed: ${why}.`;
    for (const r of shard.health.splice(0)) r(null);
    for (const r of shard.outcome.splice(0)) r(null);
    this.stopCell.fire();
  }

  private tell(m: ToShard): void {
    for (const s of this.shards) if (!s.gone) s.thread.postMessage(m);
  }

  private sum(slot: number): number {
    let n = 0;
    for (const s of this.shards) n += s.tally[slot];
    return n;
  }

  outstanding(): number {
    return this.sum(TALLY.live);
  }

  everyWorkerHasToken(): boolean {
    return this.streamsStarted() === this.x.workers;
  }

  streamsStarted(): number {
    return this.sum(TALLY.started);
  }

  clientActive(): number {
    return this.sum(TALLY.streaming);
  }

  tokens(sinceOpen: boolean): number {
    return this.sum(sinceOpen ? TALLY.windowTokens : TALLY.tokens);
  }

  openWindow(t0: number): void {
    this.health = startClientHealth();
    this.tell({ type: 'open', t0 });
  }

  async closeWindow(t1: number, tokens: number): Promise<ClientHealthReading> {
    const own = (this.health ?? startClientHealth()).stop(tokens);
    this.health = null;
    const readings = await Promise.all(
      this.shards.map((s) => this.ask(s, s.health, { type: 'close', t1, tokens: s.tally[TALLY.windowTokens] })),
    );
    return mergeHealth(
      own,
      readings.filter((r): r is ClientHealthReading => r !== null),
    );
  }

  checkStalls(): void {
    this.tell({ type: 'stalls' });
  }

  async finish(): Promise<LoadOutcome> {
    const seen = await Promise.all(this.shards.map((s) => this.ask(s, s.outcome, { type: 'finish' })));
    for (const s of this.shards) {
      s.gone = true;
      void s.thread.terminate();
    }
    const merged = seen.reduce<LoadOutcome>((all, o) => (o ? mergeOutcomes(all, o) : all), EMPTY);
    return { ...merged, fatal: this.fatal ?? merged.fatal };
  }

  /** Sends `m` and waits for the thread's answer in `queue` (null when the thread is gone). */
  private ask<T>(s: Shard, queue: Array<(v: T | null) => void>, m: ToShard): Promise<T | null> {
    if (s.gone) return Promise.resolve(null);
    return new Promise((resolve) => {
      queue.push(resolve);
      s.thread.postMessage(m);
    });
  }
}

/**
 * Two shares' outcomes as one cell's: streams in order of sending. A share whose failures ended the cell
 * keeps its own count, which its fatal message states.
 */
function mergeOutcomes(a: LoadOutcome, b: LoadOutcome): LoadOutcome {
  return {
    streams: [...a.streams, ...b.streams].sort((p, q) => p.sentAt - q.sentAt),
    looped: a.looped ?? b.looped,
    fatal: a.fatal ?? b.fatal,
    connectionLost: a.connectionLost || b.connectionLost,
    failed: a.failed + b.failed,
    firstError: a.firstError ?? b.firstError,
    fused: a.fused ?? b.fused,
    turnarounds: [...a.turnarounds, ...b.turnarounds].sort((p, q) => p.sentAt - q.sentAt),
  };
}
