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
}

/** What the figures need of one request; times are wall epoch ms (-1 when it never happened). */
export interface LoadRecord {
  /** When its arrival was due (with a cap, sending may come later). */
  dueAt: number;
  sentAt: number;
  firstTokenAt: number;
  lastTokenAt: number;
  endedAt: number;
  outputTokens: number;
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
}

export type LoadSchedule =
  /** Arrival times in server seconds from the pass's start (warm-up included). */
  | { kind: 'arrivals'; times: number[]; maxInFlight: number | null }
  /** Keep this many requests in flight until the window ends. */
  | { kind: 'closed'; concurrency: number };

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
  };
}

class Pass {
  readonly records: LoadRecord[] = [];
  private readonly open = new Set<ChatStream>();
  private readonly held: number[] = [];
  private sending = true;
  private completed = 0;
  private wake = new Interrupt();

  constructor(private readonly x: LoadPassInput) {}

  private send(dueAt: number, held = false): void {
    const req = this.x.nextRequest();
    const record: LoadRecord = {
      dueAt,
      sentAt: nowMs(),
      firstTokenAt: -1,
      lastTokenAt: -1,
      endedAt: -1,
      outputTokens: 0,
      inputTokens: req.inputTokens,
      outcome: 'cancelled',
      error: null,
      held,
    };
    this.records.push(record);
    const stream = new ChatStream(this.x.http, {
      body: req.body,
      path: req.path,
      onEnd: (s) => {
        this.open.delete(s);
        Object.assign(record, {
          firstTokenAt: s.firstTokenAt,
          lastTokenAt: s.lastTokenAt,
          endedAt: s.endedAt,
          outputTokens: s.tokens,
          inputTokens: s.promptTokens >= 0 ? s.promptTokens : req.inputTokens,
          outcome: s.outcome === 'running' ? 'cancelled' : s.outcome,
          error: s.error,
        });
        if (s.outcome === 'done') this.completed++;
        this.afterEnd();
      },
    });
    record.sentAt = stream.sentAt;
    this.open.add(stream);
  }

  /** A request ended: a held arrival or, in a closed pass, the next request takes its place. */
  private afterEnd(): void {
    if (!this.sending) {
      if (this.open.size === 0) this.wake.fire();
      return;
    }
    const s = this.x.schedule;
    if (s.kind === 'closed') this.send(nowMs());
    else if (this.held.length > 0) this.send(this.held.shift() as number, true);
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
    const scrape = this.x.metrics ? this.scrapeLoop(readings, windowEndMs) : Promise.resolve();
    if (schedule.kind === 'closed') for (let i = 0; i < schedule.concurrency; i++) this.send(start);
    else {
      for (const t of schedule.times) {
        const due = start + clock.wallMs(t);
        if (due >= windowEndMs || stop.fired) break;
        if (due > nowMs()) await stop.sleep(due - nowMs());
        if (stop.fired) break;
        this.arrive(due, schedule.maxInFlight);
      }
    }
    if (nowMs() < windowEndMs) await stop.sleep(windowEndMs - nowMs());
    this.sending = false;
    this.held.length = 0;
    if (this.open.size > 0 && !stop.fired) {
      const unsubscribe = stop.onFire(() => this.wake.fire());
      await this.wake.sleep(clock.wallMs(this.x.drainSeconds));
      unsubscribe();
    }
    for (const s of [...this.open]) s.cancel();
    await scrape;
    return { records: this.records, windowStartMs, windowEndMs, readings };
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
