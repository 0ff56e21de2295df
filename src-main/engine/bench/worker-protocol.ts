/** Messages between the parent (startRun) and the benchmark worker process. Plain JSON data. */
import type { ServerTarget } from '../server/target';
import type { Session } from '#shared/session/schema';
import type { LoadEvent, LoadRunOptions } from './load-run';
import type { BenchEvent, RunPlan } from './types';

/** What a load run in the worker is given: its options, less what cannot cross a process boundary. */
export type LoadWork = Omit<LoadRunOptions, 'onEvent' | 'serverLogLines'>;

export type ParentMessage =
  | {
      type: 'start';
      target: ServerTarget;
      plan: RunPlan;
      /** Keys ("8192x16") of decode cells already done (resume): they are not run again. */
      doneCells: string[];
      /** Prefill contexts already measured (resume). */
      donePrefill: number[];
    }
  /** Cancel in-flight requests, mark the current cell Cancelled, finish. */
  | { type: 'stop' }
  /** The supervisor restarted the server: continue against this target (null: it could not). */
  | { type: 'server-restarted'; target: ServerTarget | null }
  /** A load run (docs/load.md) instead of a matrix: the load client runs in the worker too. */
  | { type: 'load'; work: LoadWork }
  /** The server's latest log lines, which the load run's session keeps. */
  | { type: 'server-log'; lines: string[] };

export type WorkerMessage =
  | { type: 'event'; event: BenchEvent }
  /** The worker saw the server die and waits for 'server-restarted'. */
  | { type: 'server-down'; message: string }
  | { type: 'finished'; cancelled: boolean; serverLost: string | null; checksUnavailable: string[]; notes: string[] }
  | { type: 'fatal'; message: string }
  | { type: 'load-event'; event: LoadEvent }
  | { type: 'load-finished'; session: Session; cancelled: boolean };
