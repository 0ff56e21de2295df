/**
 * The processes a crashed server's leader left running (supervisor.ts): ended at once, or kept
 * as reported for a person to decide (orphanPolicy 'report'), and ended later by their pids,
 * never a pid that is no longer the same process.
 */
import type { ProcessControl } from '../../platform/processes/process-control';
import { endLeftovers, findLeftovers, type LeftoverProcess } from './orphans';

export interface LeftoverAccess {
  nvidiaSmi?: string;
  control: ProcessControl;
}

export class CrashLeftovers {
  /** Ended after the leader exited: at once, or later by end(). */
  ended: LeftoverProcess[] = [];
  /** Reported but not ended yet (orphanPolicy 'report'). */
  live: LeftoverProcess[] = [];

  /** `say`: a line for the server's log. */
  constructor(
    private readonly access: () => LeftoverAccess,
    private readonly say: (line: string) => void,
  ) {}

  reset(): void {
    this.ended = [];
    this.live = [];
  }

  /** After the leader died on its own: kill what remains of its group, and say what that was. */
  async reap(pgid: number): Promise<LeftoverProcess[]> {
    const found = await this.lookFor(pgid);
    if (found.length > 0) await endLeftovers(pgid, found, 3000, this.access());
    return found;
  }

  /** What the dead leader's group left running; where that cannot be checked, the log says so. */
  async lookFor(pgid: number): Promise<LeftoverProcess[]> {
    const { found, unchecked } = await findLeftovers(pgid, [], this.access());
    if (unchecked)
      this.say(
        `[speedmatrix] could not check for processes the server left running (${unchecked}); look for them by hand (Task Manager, ps, nvidia-smi).`,
      );
    return found;
  }

  /**
   * The reported ones (or those of them named in `pids`) that are still the same processes
   * (pid and command: a pid may have been reused since), as they are now.
   */
  async stillLive(pgid: number | undefined, pids?: readonly number[]): Promise<LeftoverProcess[]> {
    const chosen = this.live.filter((o) => !pids || pids.includes(o.pid));
    if (!pgid || chosen.length === 0) return [];
    const { found: now } = await findLeftovers(
      pgid,
      chosen.map((o) => o.pid),
      this.access(),
    );
    return now.filter((p) => chosen.some((o) => o.pid === p.pid && o.command === p.command));
  }

  /**
   * End the reported ones (all, or those named in `pids`; other pids are ignored, so a caller
   * can never have an unrelated process killed). Returns what was ended.
   */
  async end(pgid: number | undefined, pids?: number[]): Promise<LeftoverProcess[]> {
    const targets = await this.stillLive(pgid, pids);
    if (!pgid || targets.length === 0) {
      this.live = this.live.filter((o) => pids && !pids.includes(o.pid));
      return [];
    }
    let stillAlive: LeftoverProcess[];
    if (!pids) {
      // All of them: the group too (it still has members, so its id cannot have been reused).
      stillAlive = (await endLeftovers(pgid, targets, 3000, this.access())).found;
    } else {
      for (const t of targets) await this.access().control.killProcess(t.pid);
      const deadline = Date.now() + 3000;
      stillAlive = await this.stillLive(
        pgid,
        targets.map((t) => t.pid),
      );
      while (stillAlive.length > 0 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        stillAlive = await this.stillLive(
          pgid,
          targets.map((t) => t.pid),
        );
      }
    }
    const ended = targets.filter((t) => !stillAlive.some((s) => s.pid === t.pid));
    // Those that ended (or were already gone) are no longer ours to report; survivors stay listed.
    this.live = this.live.filter(
      (o) => stillAlive.some((s) => s.pid === o.pid) || (pids !== undefined && !pids.includes(o.pid)),
    );
    this.ended = [...this.ended, ...ended];
    return ended;
  }
}
