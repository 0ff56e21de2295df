/**
 * A load run (docs/load.md): the rates asked for, or a sweep (a synchronous pass, a throughput
 * pass, then rates spread between the two), each measured by load-rate.ts and judged by
 * load-figures.ts; the session (a load session: `session.load`) is saved after every pass.
 */
import { APP_NAME, APP_VERSION } from '../../platform/runtime/app-version';
import { createSession, newRunTag } from '../../platform/session/create';
import { writeSessionFile } from '../../platform/session/write';
import type { Hardware, Session } from '#shared/session/schema';
import type { LoadConfig, LoadPass, LoadRateResult } from '#shared/session/schema-load';
import type { ServerTarget } from '../server/target';
import { Interrupt, ServerClock } from './clock';
import { createHttp } from './http';
import { arrivalTimes } from './load-arrivals';
import { bestRateWithinSlo, loadFigures } from './load-figures';
import type { DatasetEntry } from './load-dataset';
import type { TraceEntry } from './load-trace';
import { loadRequests } from './load-prompts';
import { sessionServerOf } from '../server/target';
import { type LoadSchedule, runLoadPass } from './load-rate';

/** Server seconds a trace's window runs past its last arrival (a window ends before its end, not at it). */
const TRACE_WINDOW_MARGIN_SECONDS = 0.001;

/** Requests in flight in the sweep's throughput pass when --max-in-flight does not say. */
export const THROUGHPUT_CONCURRENCY = 64;

export type LoadEvent =
  | { type: 'pass-start'; pass: LoadPass; targetRate: number | null; index: number; total: number }
  | { type: 'tick'; sent: number; completed: number }
  | { type: 'pass-done'; result: LoadRateResult; index: number; total: number }
  | { type: 'log'; level: 'info' | 'warn'; message: string };

export interface LoadRunOptions {
  target: ServerTarget;
  config: LoadConfig;
  /** A simulator's clock speed-up: times and rates are then in simulated seconds. */
  simSpeed?: number;
  hardware?: Hardware;
  sessionFile: string;
  /** The prompts of --dataset, read and checked by the caller (config.dataset names the file). */
  dataset?: readonly DatasetEntry[];
  /** The requests of --trace, read and checked by the caller (config.trace describes them). */
  trace?: readonly TraceEntry[];
  onEvent: (e: LoadEvent) => void;
  serverLogLines?: () => string[];
}

export interface LoadRunHandle {
  stop(): void;
  done: Promise<{ session: Session; cancelled: boolean }>;
}

/** The sweep's rates: `points` rates spread evenly strictly between the synchronous and the throughput rate. */
export function sweepRates(syncRate: number, maxRate: number, points: number): number[] {
  const lo = Math.min(syncRate, maxRate);
  const hi = Math.max(syncRate, maxRate);
  return Array.from({ length: points }, (_, i) => lo + ((hi - lo) * (i + 1)) / (points + 1));
}

function newLoadSession(o: LoadRunOptions, runTag: string, speed: number): Session {
  const t = o.target;
  const at = new Date().toISOString();
  return createSession({
    simulated: t.simulated,
    ...(o.hardware ? { hardware: o.hardware } : {}),
    engine: t.engine,
    server: sessionServerOf(t),
    runConfig: {
      contexts: [],
      concurrency: [],
      prefillContexts: [],
      secondsPerMeasurement: o.config.durationSeconds,
      maxOutputTokens: 1,
      decodeTestMode: 'fixed-duration',
      prefillMode: 'during-decode-warmup',
      tokenTargeting: t.tokenize ? 'exact' : 'estimate',
      benchmarkTool: `${APP_NAME} ${APP_VERSION}`,
      runTag,
    },
    kvBudget: t.kvBudget,
    events:
      speed === 1
        ? []
        : [
            {
              at,
              level: 'info',
              message: `Simulated server at --sim-speed ${speed}: every time and rate is in simulated seconds, so figures read as at speed 1.`,
            },
          ],
    load: { config: o.config, results: [], bestRateWithinSlo: null },
  });
}

class LoadRun {
  private readonly stopSignal = new Interrupt();
  private readonly clock: ServerClock;
  private readonly runTag = newRunTag();
  private session: Session;

  constructor(private readonly o: LoadRunOptions) {
    this.clock = new ServerClock(o.simSpeed ?? 1);
    this.session = newLoadSession(o, this.runTag, this.clock.speed);
  }

  stop = (): void => this.stopSignal.fire();

  async run(): Promise<{ session: Session; cancelled: boolean }> {
    const { config: cfg, onEvent } = this.o;
    const http = createHttp(this.o.target);
    try {
      const trace = cfg.trace && this.o.trace?.length ? this.o.trace : null;
      const requests = await loadRequests(http, cfg, this.runTag, this.o.dataset ?? null, trace);
      if (requests.note) this.log('warn', requests.note);
      const pass = async (
        kind: LoadPass,
        schedule: LoadSchedule,
        rate: number | null,
        index: number,
        total: number,
        window = { warmupSeconds: cfg.warmupSeconds, durationSeconds: cfg.durationSeconds },
      ) => {
        onEvent({ type: 'pass-start', pass: kind, targetRate: rate, index, total });
        const startedAt = new Date().toISOString();
        const output = await runLoadPass({
          http,
          engine: this.o.target.engineKind,
          metrics: this.o.target.metricsAvailable,
          clock: this.clock,
          schedule,
          ...window,
          drainSeconds: Math.max(60, window.durationSeconds),
          nextRequest: requests.next,
          stop: this.stopSignal,
          onTick: (sent, completed) => onEvent({ type: 'tick', sent, completed }),
        });
        const result = loadFigures({
          pass: kind,
          targetRate: rate,
          output,
          clock: this.clock,
          slo: cfg.slo,
          startedAt,
        });
        if (!this.stopSignal.fired) await this.keep(result);
        onEvent({ type: 'pass-done', result, index, total });
        return result;
      };
      if (trace) {
        // The window runs to just past the last arrival, so every request of the trace is in it.
        const durationSeconds = (cfg.trace?.spanSeconds ?? 0) + TRACE_WINDOW_MARGIN_SECONDS;
        await pass('trace', { kind: 'trace', count: trace.length }, null, 0, 1, { warmupSeconds: 0, durationSeconds });
        return await this.end(this.stopSignal.fired);
      }
      let rates = cfg.rates;
      let total = rates.length;
      let index = 0;
      if (cfg.sweep) {
        total = cfg.sweep.points + 2;
        const sync = await pass('synchronous', { kind: 'closed', concurrency: 1 }, null, index++, total);
        if (this.stopSignal.fired) return this.end(true);
        const most = cfg.maxInFlight ?? THROUGHPUT_CONCURRENCY;
        const max = await pass('throughput', { kind: 'closed', concurrency: most }, null, index++, total);
        rates = sweepRates(sync.achievedRate, max.achievedRate, cfg.sweep.points);
        this.session = { ...this.session, load: { ...this.session.load!, config: { ...cfg, rates } } };
      }
      for (const [i, rate] of rates.entries()) {
        if (this.stopSignal.fired) break;
        const times = arrivalTimes(cfg.arrivals, rate, cfg.warmupSeconds + cfg.durationSeconds, cfg.seed + i);
        await pass('rate', { kind: 'arrivals', times, maxInFlight: cfg.maxInFlight }, rate, index++, total);
      }
      return await this.end(this.stopSignal.fired);
    } finally {
      await http.agent.close().catch(() => undefined);
    }
  }

  private log(level: 'info' | 'warn', message: string): void {
    this.session.events.push({ at: new Date().toISOString(), level, message });
    this.o.onEvent({ type: 'log', level, message });
  }

  private async keep(result: LoadRateResult): Promise<void> {
    const load = this.session.load!;
    const results = [...load.results, result];
    this.session = { ...this.session, load: { ...load, results, bestRateWithinSlo: bestRateWithinSlo(results) } };
    // A refused save loses nothing: the figures stay in memory and the final save tries again.
    await this.save().catch((e: Error) => this.log('warn', e.message));
  }

  private async save(): Promise<void> {
    const lines = this.o.serverLogLines?.() ?? [];
    this.session = {
      ...this.session,
      updatedAt: new Date().toISOString(),
      serverLog: lines.length ? { lines, truncated: false } : this.session.serverLog,
    };
    const w = await writeSessionFile(this.o.sessionFile, this.session);
    if (!w.ok) throw new Error(w.error);
  }

  private async end(cancelled: boolean): Promise<{ session: Session; cancelled: boolean }> {
    if (cancelled)
      this.log('warn', 'Stopped by the user: the rates measured so far are kept; the one cut short is not.');
    await this.save();
    return { session: this.session, cancelled };
  }
}

export function startLoadRun(o: LoadRunOptions): LoadRunHandle {
  const run = new LoadRun(o);
  return { stop: run.stop, done: run.run() };
}
