/**
 * A decode cell's load (docs/method.md, "Sustained decode"): its C workers, each keeping one
 * request in flight, and what they saw (streams, failures, stalls, tokens in the window). This is
 * one thread's share; stream-shards.ts spreads a large cell over several threads, each running one.
 */
import { fmtCell } from '#shared/report/format';
import type { EngineKind } from '../server/target';
import { Interrupt, type ServerClock } from './clock';
import { type ClientHealthProbe, type ClientHealthReading, startClientHealth } from './client-health';
import type { StreamTimes } from './figures';
import { tokensAt } from './client-threads';
import { type BenchHttp } from './http';
import type { LoopFinding } from './loop-detector';
import { type PrecisionTarget } from './precision';
import { bodyDrawer, type DecodeBodies } from './request-bodies';
import { type FailureCount, tooManyFailed } from './status';
import { ChatStream, nowMs } from './stream';
import type { BenchEvent } from './types';

/**
 * Failed requests are replaced at once; past this many, a cell whose failures are already over
 * the limit share stops instead of hammering a server that fails everything.
 */
const FAILURE_FUSE = 10;

/** The words of a cell's log line at its first failed request (a cell over threads logs it once: stream-shards.ts). */
export const FAILED_AND_REPLACED = 'a request failed and was replaced';

export interface DecodeCellInput {
  http: BenchHttp;
  engine: EngineKind;
  /** Whether /metrics answers with queue gauges (else readiness is client-side). */
  metrics: boolean;
  clock: ServerClock;
  context: number;
  concurrency: number;
  /** The request bodies: the same for every request of the cell, or each request's own (--output-len). */
  body: DecodeBodies;
  /** The window's length; with `precision`, its maximum. */
  windowSeconds: number;
  /** Adaptive measurement (docs/adaptive-precision.md): close the window once its interval is this narrow. */
  precision?: Omit<PrecisionTarget, 'maxSeconds'> | null;
  stallSeconds: number;
  readinessTimeoutSeconds: number;
  /** The user's stop. */
  stop: Interrupt;
  emit: (e: BenchEvent) => void;
  /** Threads holding the streams; by default as many as the cell needs (stream-shards.ts, threadsFor). */
  threads?: number;
}

/** What one thread's share of a cell needs: the cell's C names it in messages; `workers` are its own. */
export type LoadInput = Pick<
  DecodeCellInput,
  'http' | 'clock' | 'context' | 'concurrency' | 'stallSeconds' | 'emit'
> & {
  body: DecodeBodies;
  /** The workers this share runs (the cell's C when one thread holds the cell). */
  workers: number;
  /** This share's index among the cell's threads: it seeds the drawn bodies apart. */
  part: number;
};

/** What a cell keeps of one request: its timings (figures.ts) and what ties it to the server's own records. */
export type StreamRecord = StreamTimes & { promptTokens: number; responseId: string | null };

/** The loop found in a stream's text: the cell is Looped. */
export interface LoopRecord {
  finding: LoopFinding;
  stream: 'content' | 'reasoning';
}

/** A replacement request: when it was sent, and how long after its predecessor's last token (wall ms). */
export interface Turnaround {
  sentAt: number;
  gapMs: number;
}

/** What the load saw, once it has ended: every request, and why it ended early if it did. */
export interface LoadOutcome {
  streams: StreamRecord[];
  looped: LoopRecord | null;
  /** A failure that ends the cell whatever the count (server gone, failures far over the limit, the ramp stuck). */
  fatal: string | null;
  connectionLost: boolean;
  failed: number;
  firstError: string | null;
  /** The count when failures ended the cell early: the cell stores what its reason says. */
  fused: FailureCount | null;
  turnarounds: Turnaround[];
}

/** What decode.ts asks of a cell's load, held on this thread (CellLoad) or spread over threads (stream-shards.ts). */
export interface StreamLoad {
  /** Set by the cell when the ramp cannot end; the load's own fatal failures come with `finish`. */
  fatal: string | null;
  start(): void;
  /** Requests sent and not yet ended, as the client counts them. */
  outstanding(): number;
  /** The ramp is over: every worker has had a token (a fresh replacement need not have one yet). */
  everyWorkerHasToken(): boolean;
  /** Workers that have had a token so far: the ramp's progress. */
  streamsStarted(): number;
  /** Requests streaming (with a first token) now. */
  clientActive(): number;
  tokens(sinceOpen: boolean): number;
  /** Opens the window at wall time t0 and starts watching the client's health. */
  openWindow(t0: number): void;
  /** Closes the window at wall time t1: the client's health over the window's `tokens`. */
  closeWindow(t1: number, tokens: number): Promise<ClientHealthReading>;
  checkStalls(): void;
  /** Stops replacing, cancels every stream still going, and gives what the load saw. */
  finish(): Promise<LoadOutcome>;
}

/** Slots of a load's running counts (`Tally`): a shard writes them where its parent thread reads them. */
export const TALLY = { tokens: 0, windowTokens: 1, live: 2, streaming: 3, started: 4 } as const;
export const TALLY_SLOTS = 5;

/**
 * The C workers of a cell (or a thread's share of them). Each keeps one request in flight: when
 * it finishes, or fails (HTTP error, error event, broken or stalled stream), the worker sends the
 * next at once. A lost connection, a loop, or failures far over the limit end the cell.
 * Running counts live in `tally`: a shard's is shared memory its parent reads as it changes.
 */
export class CellLoad implements StreamLoad {
  readonly streams: ChatStream[] = [];
  private readonly live = new Set<ChatStream>();
  looped: LoopRecord | null = null;
  fatal: string | null = null;
  connectionLost = false;
  failed = 0;
  firstError: string | null = null;
  fused: FailureCount | null = null;
  /** Wall time the window opened (gaps between tokens count from there); +Infinity before. */
  private gapsFrom = Number.POSITIVE_INFINITY;
  private windowOpen = false;
  private readonly current: Array<ChatStream | null>;
  private readonly hadToken: boolean[];
  private accepting = true;
  private readonly nextBody: () => string;
  private health: ClientHealthProbe | null = null;
  readonly turnarounds: Turnaround[] = [];

  constructor(
    private readonly x: LoadInput,
    private readonly stopCell: Interrupt,
    private readonly tally: Float64Array = new Float64Array(TALLY_SLOTS),
  ) {
    this.current = new Array<ChatStream | null>(x.workers).fill(null);
    this.hadToken = new Array<boolean>(x.workers).fill(false);
    this.nextBody = bodyDrawer(x.body, x.part);
  }

  start(): void {
    for (let w = 0; w < this.x.workers; w++) this.send(w);
  }

  private send(worker: number): void {
    let streaming = false;
    const s = new ChatStream(this.x.http, {
      body: this.nextBody(),
      detectLoops: true,
      onTokens: (added) => {
        this.tally[TALLY.tokens] += added;
        if (this.windowOpen) this.tally[TALLY.windowTokens] += added;
        if (streaming || s.firstTokenAt < 0) return;
        streaming = true;
        this.tally[TALLY.streaming]++;
        if (!this.hadToken[worker]) {
          this.hadToken[worker] = true;
          this.tally[TALLY.started]++;
        }
      },
      onEnd: (st) => {
        if (streaming) this.tally[TALLY.streaming]--;
        this.ended(st, worker);
      },
      onLoop: (st) => {
        this.looped ??= st.loop;
        this.stopCell.fire(); // the measurement is discarded: no need to go on
      },
    });
    s.gapsFrom = this.gapsFrom;
    this.streams.push(s);
    this.current[worker] = s;
    if (s.outcome === 'running') {
      this.live.add(s);
      this.tally[TALLY.live]++;
    }
  }

  private ended(s: ChatStream, worker: number): void {
    if (this.live.delete(s)) this.tally[TALLY.live]--;
    if (!this.accepting) return;
    if (s.outcome === 'error' && !this.countFailure(s)) return;
    if (s.outcome === 'error' || s.outcome === 'done') {
      this.send(worker);
      const next = this.current[worker]!;
      const lastSeen = s.lastTokenAt >= 0 ? s.lastTokenAt : s.endedAt;
      if (lastSeen >= 0) this.turnarounds.push({ sentAt: next.sentAt, gapMs: Math.max(0, next.sentAt - lastSeen) });
    }
  }

  /** Counts a failed request; false when the failure ends the cell (the server gone, or the fuse). */
  private countFailure(s: ChatStream): boolean {
    this.firstError ??= s.error;
    if (s.connectionLost) {
      this.fatal ??= s.error;
      this.connectionLost = true;
      this.stopCell.fire();
      return false;
    }
    this.failed++;
    if (this.failed === 1)
      this.x.emit({
        type: 'log',
        level: 'warn',
        message: `Cell ${fmtCell(this.x.context, this.x.concurrency)}: ${FAILED_AND_REPLACED}: ${s.error}`,
      });
    const soFar: FailureCount = {
      windowRequests: this.streams.length,
      failed: this.failed,
      firstError: this.firstError,
    };
    if (this.failed < FAILURE_FUSE || !tooManyFailed(soFar)) return true;
    this.fused = soFar;
    this.fatal = `${this.failed} of ${this.streams.length} requests failed; the first: ${this.firstError ?? 'no message'}`;
    this.stopCell.fire();
    return false;
  }

  outstanding(): number {
    return this.tally[TALLY.live];
  }

  everyWorkerHasToken(): boolean {
    return this.streamsStarted() === this.x.workers;
  }

  streamsStarted(): number {
    return this.tally[TALLY.started];
  }

  clientActive(): number {
    return this.tally[TALLY.streaming];
  }

  tokens(sinceOpen: boolean): number {
    return this.tally[sinceOpen ? TALLY.windowTokens : TALLY.tokens];
  }

  /**
   * Every stream's count at t0 is where its window tokens start. A shard hears of the window a moment
   * after t0: a stream's last arrival after t0 is then the window's, not before it (client-threads.ts).
   */
  openWindow(t0: number): void {
    this.gapsFrom = t0;
    let inWindow = 0;
    for (const s of this.streams) {
      s.tokensAtOpen = tokensAt(s, t0);
      s.gapsFrom = t0;
      inWindow += s.tokens - s.tokensAtOpen;
    }
    this.tally[TALLY.windowTokens] = inWindow;
    this.windowOpen = true;
    this.health = startClientHealth();
  }

  closeWindow(t1: number, tokens: number): Promise<ClientHealthReading> {
    this.windowOpen = false;
    for (const s of this.streams) {
      s.tokensAtClose = tokensAt(s, t1);
      s.gapAtCloseMs = s.outcome === 'running' && s.firstTokenAt >= 0 ? Math.max(0, t1 - s.lastTokenAt) : 0;
    }
    const reading = (this.health ?? startClientHealth()).stop(tokens);
    this.health = null;
    return Promise.resolve(reading);
  }

  /**
   * Stalls: no bytes for the stall limit once streaming. Such a stream fails. A request with no
   * first token yet is not judged here: the readiness gate (and its ramp-stuck rule) does that for
   * the ramp, and a request the server holds without serving it is queueing, which the cell's
   * status reports. Failing it at the readiness deadline plus the window raced the window's close
   * and turned a Requests-queued cell into an Error (docs/method.md, "Statuses").
   * The verdict waits for the check phase of this loop turn: a check can run before the client
   * has read what came in while its own event loop was held up (timers run before I/O, and a
   * /metrics answer may be handled before the streams' bytes), and a client that was busy must
   * not blame the server for a silence that is its own. By then every waiting byte has been read.
   */
  checkStalls(): void {
    const suspects = [...this.live].filter((s) => this.stallOf(s) !== null);
    if (suspects.length === 0) return;
    setImmediate(() => {
      for (const s of suspects) {
        const reason = s.outcome === 'running' ? this.stallOf(s) : null;
        if (reason) s.failWith(reason);
      }
    });
  }

  /** Why a streaming request counts as stalled now, or null. */
  private stallOf(s: ChatStream): string | null {
    if (s.firstTokenAt < 0) return null;
    return this.x.clock.seconds(nowMs() - s.lastActivityAt) > this.x.stallSeconds
      ? `No token for ${this.x.stallSeconds} s: the stream stalled (the server stopped producing tokens).`
      : null;
  }

  /** Stop replacing and cancel every stream still going (closing the connection aborts it on vLLM). */
  finish(): Promise<LoadOutcome> {
    this.accepting = false;
    for (const s of [...this.live]) s.cancel();
    const { streams, looped, fatal, connectionLost, failed, firstError, fused, turnarounds } = this;
    return Promise.resolve({ streams, looped, fatal, connectionLost, failed, firstError, fused, turnarounds });
  }
}
