/**
 * Following a remote run to its end across dropped connections: each follow starts at the byte
 * where the last one stopped, so no progress line is shown twice; a run that died there without
 * finishing (the host rebooted, the process was killed) is resumed from its journal, which
 * measures only what it had not finished. See remote-run.ts.
 */
import type { Follow, RemoteState } from './remote-run';
import { RemoteError } from './ssh';

/** Set when the person asked to stop: a run that then ends unfinished is not resumed. */
export interface Stopper {
  requested: boolean;
}

export interface FollowSteps {
  follow(offset: number): Follow;
  state(): Promise<RemoteState>;
  resume(): Promise<void>;
  stopper: Stopper;
  say(text: string): void;
  /** Waits before following again after a drop; as many tries as entries (a follow that got lines resets it). */
  retryDelaysMs?: number[];
  /** How often a run that died there is resumed before giving up. */
  maxResumes?: number;
  /**
   * Where following starts and how far it got: kept by a caller that follows again after giving
   * up (the app's Reattach), so no line is read twice. Starts at 0 when not given.
   */
  cursor?: { offset: number };
  /** Told when the link drops, before waiting: what dropped it and the seconds until the next try (else said). */
  dropped?(problem: string, retryInS: number): void;
  /** Cuts the wait before the next try short (the app's Reattach). */
  waker?: Waker;
}

/**
 * The wait before following again, which a person can cut short: `wake()` ends the wait under
 * way, or the next one when a try is in flight, so a click never goes unheard.
 */
export class Waker {
  private wake_: (() => void) | null = null;
  private pending = false;

  wake(): void {
    if (this.wake_) this.wake_();
    else this.pending = true;
  }

  wait(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake_ = null;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake_ = done;
    });
  }
}

const DEFAULT_DELAYS = [1000, 2000, 5000, 10_000, 20_000];

/** Died without saying so: killed (no exit code written) or ended by a signal other than our stop. */
export const diedUnfinished = (exit: number | null): boolean => exit === null || (exit > 128 && exit !== 130);

export async function followUntilEnded(
  s: FollowSteps,
  host: string,
): Promise<{ exit: number | null; stderrTail: string[] }> {
  const delays = s.retryDelaysMs ?? DEFAULT_DELAYS;
  const cursor = s.cursor ?? { offset: 0 };
  const waker = s.waker ?? new Waker();
  let failures = 0;
  let resumes = 0;
  for (;;) {
    const r = await s.follow(cursor.offset).done;
    if (r.offset > cursor.offset) failures = 0;
    cursor.offset = r.offset;
    let problem = r.problem;
    if (r.ended) {
      try {
        const state = await s.state();
        if (state.running) continue;
        if (!diedUnfinished(state.exit) || s.stopper.requested || resumes >= (s.maxResumes ?? 3))
          return { exit: state.exit, stderrTail: state.stderrTail };
        resumes++;
        s.say(
          `The run on ${host} ended without finishing (exit ${state.exit ?? 'unknown'}): resuming it from its journal.`,
        );
        await s.resume();
        continue;
      } catch (e) {
        problem = (e as Error).message;
      }
    }
    if (failures >= delays.length)
      throw new RemoteError(`lost the connection to ${host} (${problem}); the run carries on there.`);
    const delayS = delays[failures] / 1000;
    if (s.dropped) s.dropped(problem ?? 'no reason given', delayS);
    else s.say(`Connection to ${host} lost (${problem}); following again in ${delayS} s...`);
    await waker.wait(delays[failures++]);
  }
}
