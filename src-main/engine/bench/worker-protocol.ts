/** Messages between the parent (startRun) and the benchmark worker process. Plain JSON data. */
import type { ServerTarget } from '../server/target';
import type { BenchEvent, RunPlan } from './types';

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
  | { type: 'server-restarted'; target: ServerTarget | null };

export type WorkerMessage =
  | { type: 'event'; event: BenchEvent }
  /** The worker saw the server die and waits for 'server-restarted'. */
  | { type: 'server-down'; message: string }
  | { type: 'finished'; cancelled: boolean; serverLost: string | null; checksUnavailable: string[]; notes: string[] }
  | { type: 'fatal'; message: string };
