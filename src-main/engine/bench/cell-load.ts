/**
 * A decode cell's load (docs/method.md, "Sustained decode"): its C workers, each keeping one
 * request in flight, and what they saw (streams, failures, stalls, tokens in the window).
 */
import { fmtCell } from '#shared/report/format';
import type { EngineKind } from '../server/target';
import { Interrupt, type ServerClock } from './clock';
import { type BenchHttp } from './http';
import { type PrecisionTarget } from './precision';
import { type FailureCount, tooManyFailed } from './status';
import { ChatStream, nowMs } from './stream';
import type { BenchEvent } from './types';

/**
 * Failed requests are replaced at once; past this many, a cell whose failures are already over
 * the limit share stops instead of hammering a server that fails everything.
 */
const FAILURE_FUSE = 10;

export interface DecodeCellInput {
  http: BenchHttp;
  engine: EngineKind;
  /** Whether /metrics answers with queue gauges (else readiness is client-side). */
  metrics: boolean;
  clock: ServerClock;
  context: number;
  concurrency: number;
  /** The serialized request body: the same for every request of the cell, or each request's own (--output-len). */
  body: string | (() => string);
  /** The window's length; with `precision`, its maximum. */
  windowSeconds: number;
  /** Adaptive measurement (docs/adaptive-precision.md): close the window once its interval is this narrow. */
  precision?: Omit<PrecisionTarget, 'maxSeconds'> | null;
  stallSeconds: number;
  readinessTimeoutSeconds: number;
  /** The user's stop. */
  stop: Interrupt;
  emit: (e: BenchEvent) => void;
}

/**
 * The C workers of a cell. Each keeps one request in flight: when it finishes, or fails (HTTP
 * error, error event, broken or stalled stream), the worker sends the next at once. A lost
 * connection, a loop, or failures far over the limit end the cell.
 */
export class CellLoad {
  readonly streams: ChatStream[] = [];
  readonly live = new Set<ChatStream>();
  looped: ChatStream | null = null;
  /** A failure that ends the cell whatever the count (server gone, failures far over the limit). */
  fatal: string | null = null;
  connectionLost = false;
  failed = 0;
  firstError: string | null = null;
  /** The whole cell's count when failures ended it early: the cell stores what its reason says. */
  fused: FailureCount | null = null;
  /** Wall time the window opened (gaps between tokens count from there); +Infinity before. */
  private gapsFrom = Number.POSITIVE_INFINITY;
  private readonly current: Array<ChatStream | null>;
  private readonly hadToken: boolean[];
  private accepting = true;
  /** Each replacement request: when it was sent, and how long after its predecessor's last token (wall ms). */
  readonly turnarounds: Array<{ sentAt: number; gapMs: number }> = [];

  constructor(
    private readonly x: DecodeCellInput,
    private readonly stopCell: Interrupt,
  ) {
    this.current = new Array<ChatStream | null>(x.concurrency).fill(null);
    this.hadToken = new Array<boolean>(x.concurrency).fill(false);
  }

  start(): void {
    for (let w = 0; w < this.x.concurrency; w++) this.send(w);
  }

  private send(worker: number): void {
    const s = new ChatStream(this.x.http, {
      body: typeof this.x.body === 'string' ? this.x.body : this.x.body(),
      detectLoops: true,
      onEnd: (st) => this.ended(st, worker),
      onLoop: (st) => {
        this.looped ??= st;
        this.stopCell.fire(); // the measurement is discarded: no need to go on
      },
    });
    s.gapsFrom = this.gapsFrom;
    this.streams.push(s);
    this.current[worker] = s;
    if (s.outcome === 'running') this.live.add(s);
  }

  private ended(s: ChatStream, worker: number): void {
    this.live.delete(s);
    if (s.firstTokenAt >= 0) this.hadToken[worker] = true;
    if (!this.accepting) return;
    if (s.outcome === 'error') {
      this.firstError ??= s.error;
      if (s.connectionLost) {
        this.fatal ??= s.error;
        this.connectionLost = true;
        this.stopCell.fire();
        return;
      }
      this.failed++;
      if (this.failed === 1)
        this.x.emit({
          type: 'log',
          level: 'warn',
          message: `Cell ${fmtCell(this.x.context, this.x.concurrency)}: a request failed and was replaced: ${s.error}`,
        });
      const soFar: FailureCount = {
        windowRequests: this.streams.length,
        failed: this.failed,
        firstError: this.firstError,
      };
      if (this.failed >= FAILURE_FUSE && tooManyFailed(soFar)) {
        this.fused = soFar;
        this.fatal = `${this.failed} of ${this.streams.length} requests failed; the first: ${this.firstError ?? 'no message'}`;
        this.stopCell.fire();
        return;
      }
    }
    if (s.outcome === 'error' || s.outcome === 'done') {
      this.send(worker);
      const next = this.current[worker]!;
      const lastSeen = s.lastTokenAt >= 0 ? s.lastTokenAt : s.endedAt;
      if (lastSeen >= 0) this.turnarounds.push({ sentAt: next.sentAt, gapMs: Math.max(0, next.sentAt - lastSeen) });
    }
  }

  /** Requests sent and not yet ended, as the client counts them. */
  outstanding(): number {
    return this.live.size;
  }

  /** The ramp is over: every worker has had a token (a fresh replacement need not have one yet). */
  everyWorkerHasToken(): boolean {
    return this.streamsStarted() === this.x.concurrency;
  }

  /** Workers that have had a token so far: the ramp's progress. */
  streamsStarted(): number {
    let n = 0;
    this.current.forEach((s, w) => {
      if (this.hadToken[w] || (s !== null && s.firstTokenAt >= 0)) n++;
    });
    return n;
  }

  clientActive(): number {
    let n = 0;
    for (const s of this.live) if (s.firstTokenAt >= 0) n++;
    return n;
  }

  tokens(sinceOpen: boolean): number {
    let n = 0;
    for (const s of this.streams) n += sinceOpen ? Math.max(0, s.tokens - s.tokensAtOpen) : s.tokens;
    return n;
  }

  openWindow(t0: number): void {
    this.gapsFrom = t0;
    for (const s of this.streams) {
      s.tokensAtOpen = s.tokens;
      s.gapsFrom = t0;
    }
  }

  closeWindow(t1: number): void {
    for (const s of this.streams) {
      s.tokensAtClose = s.tokens;
      s.gapAtCloseMs = s.outcome === 'running' && s.firstTokenAt >= 0 ? t1 - s.lastTokenAt : 0;
    }
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
  cancelAll(): void {
    this.accepting = false;
    for (const s of [...this.live]) s.cancel();
  }
}

/** What the live view shows, shared by the phases and the sampler. */
