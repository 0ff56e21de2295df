/**
 * Server time. Against a simulator running X times faster, every duration of the method
 * (windows, gates, timeouts) and every figure is in simulated seconds: wall time x X.
 * At X = 1 this is plain wall time.
 */
import { nowMs } from './stream';

export class ServerClock {
  constructor(readonly speed: number) {}

  /** Wall milliseconds -> server seconds. */
  seconds(wallMs: number): number {
    return (wallMs / 1000) * this.speed;
  }

  /** Server seconds -> wall milliseconds. */
  wallMs(serverSeconds: number): number {
    return (serverSeconds * 1000) / this.speed;
  }

  /** Server seconds elapsed since a wall timestamp (epoch ms). */
  since(wallMs: number): number {
    return this.seconds(nowMs() - wallMs);
  }
}

/** A sleep that can be cut short (stop, an error, a loop). */
export class Interrupt {
  private wakers = new Set<() => void>();
  fired = false;

  fire(): void {
    this.fired = true;
    for (const w of this.wakers) w();
    this.wakers.clear();
  }

  /** Calls `listener` at fire() (at once if already fired); returns an unsubscribe function. */
  onFire(listener: () => void): () => void {
    if (this.fired) {
      listener();
      return () => undefined;
    }
    this.wakers.add(listener);
    return () => this.wakers.delete(listener);
  }

  /** Resolves after `ms` or at fire(), whichever comes first. */
  sleep(ms: number): Promise<void> {
    if (this.fired) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(t);
        this.wakers.delete(done);
        resolve();
      };
      const t = setTimeout(done, Math.max(0, ms));
      this.wakers.add(done);
    });
  }
}
