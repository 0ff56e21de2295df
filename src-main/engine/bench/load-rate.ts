/**
 * One pass of a load run (docs/load.md): requests sent on an arrival schedule (open loop, with an
 * optional cap on requests in flight) or kept at a fixed number in flight (the sweep's synchronous
 * and throughput passes), for a warm-up and a measured window; then the requests still open are
 * waited for and, past the drain limit, cancelled. /metrics is read about once a server second.
 * Returns every request's own record; the figures are computed apart (load-figures.ts).
 */
import type { EngineKind } from '../server/target';
import { Interrupt, type ServerClock } from './clock';
import { type BenchHttp, getTextOrNull } from './http';
import { metricValue, queueSample } from './metrics';
import { ChatStream, nowMs } from './stream';

/** One request to send: its body and path, and the prompt tokens it was sized to. */
export interface LoadRequest {
  body: string;
  path: string;
  inputTokens: number;
  /** A conversation's turn (1 for the first); absent outside conversations. */
  turn?: number;
  /** A conversation's next turn, built from this one's answer; absent after the last turn. */
  followUp?: { afterSeconds: number; next: (answer: string) => LoadRequest };
  /** Server seconds from the pass's start at which a replayed trace sends it (the pass's schedule is then `trace`). */
  dueSeconds?: number;
}

/** What the figures need of one request; times are wall epoch ms (-1 when it never happened). */
export interface LoadRecord {
  /** When its arrival was due (with a cap, sending may come later). */
  dueAt: number;
  sentAt: number;
  firstTokenAt: number;
  /** When the first answer token came, after any reasoning (-1: none). */
  firstAnswerAt: number;
  lastTokenAt: number;
  endedAt: number;
  outputTokens: number;
  /** Tokens of reasoning text before the answer (0: none). */
  reasoningTokens: number;
  /** A conversation's turn number, 1 for the first (0 outside conversations). */
  turn: number;
  /** usage.prompt_tokens, else the size it was built to. */
  inputTokens: number;
  outcome: 'done' | 'cancelled' | 'error';
  error: string | null;
  /** Its arrival found the in-flight cap reached and waited for a request to end. */
  held: boolean;
}

/** One /metrics reading: waiting requests and the queue-time histogram's running sum and count. */
export interface QueueReading {
  at: number;
  waiting: number;
  queueSum: number | null;
  queueCount: number | null;
  /** The prefix cache's running counters: prompt tokens looked up, and those found cached. */
  prefixQueries?: number | null;
  prefixHits?: number | null;
}

export type LoadSchedule =
  /** Arrival times in server seconds from the pass's start (warm-up included). */
  | { kind: 'arrivals'; times: number[]; maxInFlight: number | null }
  /** Keep this many requests in flight until the window ends. */
  | { kind: 'closed'; concurrency: number }
  /** Each request at its own `dueSeconds` (a replayed trace), `count` of them. */
  | { kind: 'trace'; count: number };

export interface LoadPassInput {
  http: BenchHttp;
  engine: EngineKind;
  metrics: boolean;
  clock: ServerClock;
  schedule: LoadSchedule;
  warmupSeconds: number;
  durationSeconds: number;
  /** Server seconds to wait for open requests after the window before cancelling them. */
  drainSeconds: number;
  nextRequest: () => LoadRequest;
  stop: Interrupt;
  /** Told about once a server second while the pass runs (live views). */
  onTick?: (sent: number, completed: number) => void;
}

export interface LoadPassOutput {
  records: LoadRecord[];
  windowStartMs: number;
  windowEndMs: number;
  readings: QueueReading[];
  /** The prefix cache's counters before the pass and after its last request (null: not reported). */
  prefixCache?: { before: QueueReading; after: QueueReading } | null;
}

const QUEUE_TIME = 'vllm:request_queue_time_seconds';

async function readQueue(http: BenchHttp, engine: EngineKind): Promise<QueueReading | null> {
  const text = await getTextOrNull(http, '/metrics', 5_000);
  const q = text === null ? null : queueSample(text, engine);
  if (text === null || q === null) return null;
  return {
    at: nowMs(),
    waiting: q.waiting,
    queueSum: metricValue(text, `${QUEUE_TIME}_sum`),
    queueCount: metricValue(text, `${QUEUE_TIME}_count`),
    prefixQueries: metricValue(text, 'vllm:prefix_cache_queries_total'),
    prefixHits: metricValue(text, 'vllm:prefix_cache_hits_total'),
  };
}

class Pass {
  readonly records: LoadRecord[] = [];
  private readonly open = new Set<ChatStream>();
  private readonly held: number[] = [];
  private sending = true;
  private completed = 0;
  private wake = new Interrupt();
  /** Conversations' turns waiting out their think time. */
  private readonly thinking = new Set<ReturnType<typeof setTimeout>>();

  constructor(private readonly x: LoadPassInput) {}

  private send(dueAt: number, held = false, given?: LoadRequest): void {
    const req = given ?? this.x.nextRequest();
    const record: LoadRecord = {
      dueAt,
      sentAt: nowMs(),
      firstTokenAt: -1,
      firstAnswerAt: -1,
      lastTokenAt: -1,
      endedAt: -1,
      outputTokens: 0,
      reasoningTokens: 0,
      turn: req.turn ?? 0,
      inputTokens: req.inputTokens,
      outcome: 'cancelled',
      error: null,
      held,
    };
    this.records.push(record);
    const stream = new ChatStream(this.x.http, {
      body: req.body,
      path: req.path,
      keepAnswer: req.followUp !== undefined,
      onEnd: (s) => {
        this.open.delete(s);
        Object.assign(record, {
          firstTokenAt: s.firstTokenAt,
          firstAnswerAt: s.firstAnswerAt,
          lastTokenAt: s.lastTokenAt,
          endedAt: s.endedAt,
          outputTokens: s.tokens,
          reasoningTokens: s.reasoningTokens,
          inputTokens: s.promptTokens >= 0 ? s.promptTokens : req.inputTokens,
          outcome: s.outcome === 'running' ? 'cancelled' : s.outcome,
          error: s.error,
        });
        if (s.outcome === 'done') this.completed++;
        const continues = s.outcome === 'done' && req.followUp !== undefined;
        if (continues) this.nextTurn(req.followUp!, s.answer);
        this.afterEnd(continues);
      },
    });
    record.sentAt = stream.sentAt;
    this.open.add(stream);
  }

  /** A conversation's next turn, sent after its think time while the pass still sends (docs/load.md, "Conversations"). */
  private nextTurn(followUp: NonNullable<LoadRequest['followUp']>, answer: string): void {
    const wait = this.x.clock.wallMs(followUp.afterSeconds);
    const timer = setTimeout(() => {
      this.thinking.delete(timer);
      if (this.sending) this.send(nowMs(), false, followUp.next(answer));
    }, wait);
    this.thinking.add(timer);
  }

  /**
   * A request ended: a held arrival or, in a closed pass, the next request takes its place (a
   * conversation's next turn, when it has one, takes it after its think time).
   */
  private afterEnd(continues = false): void {
    if (!this.sending) {
      if (this.open.size === 0) this.wake.fire();
      return;
    }
    const s = this.x.schedule;
    if (s.kind === 'closed') {
      if (!continues) this.send(nowMs());
    } else if (this.held.length > 0) this.send(this.held.shift() as number, true);
  }

  private arrive(dueAt: number, maxInFlight: number | null): void {
    if (maxInFlight !== null && this.open.size >= maxInFlight) this.held.push(dueAt);
    else this.send(dueAt);
  }

  async run(): Promise<LoadPassOutput> {
    const { clock, schedule, stop } = this.x;
    const start = nowMs();
    const windowStartMs = start + clock.wallMs(this.x.warmupSeconds);
    const windowEndMs = windowStartMs + clock.wallMs(this.x.durationSeconds);
    const readings: QueueReading[] = [];
    const before = this.x.metrics ? await readQueue(this.x.http, this.x.engine) : null;
    const scrape = this.x.metrics ? this.scrapeLoop(readings, windowEndMs) : Promise.resolve();
    if (schedule.kind === 'closed') for (let i = 0; i < schedule.concurrency; i++) this.send(start);
    else if (schedule.kind === 'trace') await this.replay(start, schedule.count, windowEndMs);
    else await this.arriveAt(start, schedule.times, schedule.maxInFlight, windowEndMs);
    if (nowMs() < windowEndMs) await stop.sleep(windowEndMs - nowMs());
    this.sending = false;
    this.held.length = 0;
    for (const t of this.thinking) clearTimeout(t);
    if (this.open.size > 0 && !stop.fired) {
      const unsubscribe = stop.onFire(() => this.wake.fire());
      await this.wake.sleep(clock.wallMs(this.x.drainSeconds));
      unsubscribe();
    }
    for (const s of [...this.open]) s.cancel();
    await scrape;
    const after = before ? await readQueue(this.x.http, this.x.engine) : null;
    const prefixCache = before && after && typeof after.prefixQueries === 'number' ? { before, after } : null;
    return { records: this.records, windowStartMs, windowEndMs, readings, prefixCache };
  }

  /** Open-loop arrivals at their times (server seconds from `start`), until the window ends. */
  private async arriveAt(start: number, times: number[], maxInFlight: number | null, endMs: number): Promise<void> {
    for (const t of times) {
      const due = start + this.x.clock.wallMs(t);
      if (due >= endMs || this.x.stop.fired) return;
      if (due > nowMs()) await this.x.stop.sleep(due - nowMs());
      if (this.x.stop.fired) return;
      this.arrive(due, maxInFlight);
    }
  }

  /** A trace's requests, each at its own time: the source says when (`dueSeconds`), the schedule how many. */
  private async replay(start: number, count: number, endMs: number): Promise<void> {
    for (let i = 0; i < count; i++) {
      const req = this.x.nextRequest();
      const due = start + this.x.clock.wallMs(req.dueSeconds ?? 0);
      if (due >= endMs || this.x.stop.fired) return;
      if (due > nowMs()) await this.x.stop.sleep(due - nowMs());
      if (this.x.stop.fired) return;
      this.send(due, false, req);
    }
  }

  private async scrapeLoop(readings: QueueReading[], untilMs: number): Promise<void> {
    const every = Math.max(100, Math.min(1000, this.x.clock.wallMs(1)));
    for (;;) {
      const r = await readQueue(this.x.http, this.x.engine);
      if (r) readings.push(r);
      this.x.onTick?.(this.records.length, this.completed);
      if (nowMs() >= untilMs || this.x.stop.fired) return;
      await this.x.stop.sleep(Math.min(every, untilMs - nowMs()));
    }
  }
}

export function runLoadPass(input: LoadPassInput): Promise<LoadPassOutput> {
  return new Pass(input).run();
}
