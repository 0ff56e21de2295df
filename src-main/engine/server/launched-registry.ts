/**
 * Every server SpeedMatrix launches is written down (process group, command, port, start
 * time, and which SpeedMatrix process launched it) in a small state file under the user's
 * data folder, and crossed out when it is gone. A launcher killed with SIGKILL cannot stop its
 * server; the next `run --launch`, `serve` or app start reads this file, finds the servers
 * still alive whose launcher is gone, and offers to end them.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { processControl } from '../../platform/processes/process-control';
import { runCommand } from '../../platform/processes/external-command';
import { findGroupProcesses } from './orphans';
import type { Supervisor } from './supervisor';

export interface LaunchedServer {
  /** The server's process group (its leader's pid). */
  pgid: number;
  /** The launch as a person would type it (API key redacted). */
  command: string;
  port: number | null;
  /** ISO time of the launch. */
  startedAt: string;
  /** The SpeedMatrix process that launched it: while that lives, the server is not a leftover. */
  launcherPid: number;
  /** When that process started, as the OS tells it: a pid reused by a newer process is not the launcher. */
  launcherStart: string | null;
}

const STATE_FILE = 'launched-servers.json';

/**
 * The user's data folder, shared by the CLI and the app: SPEEDMATRIX_DATA_DIR when set, else
 * the platform's place for application data (the same folder Electron's userData names).
 */
export function userDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (env.SPEEDMATRIX_DATA_DIR) return env.SPEEDMATRIX_DATA_DIR;
  if (platform === 'win32') return join(env.APPDATA ?? join(homedir(), 'AppData', 'Roaming'), 'speedmatrix');
  if (platform === 'darwin') return join(homedir(), 'Library', 'Application Support', 'speedmatrix');
  return join(env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'speedmatrix');
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A process's start time as the OS reports it (Linux: /proc stat ticks; elsewhere ps); null when unknown. */
export async function processStartTime(pid: number): Promise<string | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces and parentheses): starttime is the 20th.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    if (process.platform === 'linux' || process.platform === 'win32') return null;
  }
  const ps = await runCommand('ps', ['-o', 'lstart=', '-p', String(pid)], { timeoutMs: 5000 });
  return ps.status === 'ok' && ps.stdout.trim() ? ps.stdout.trim() : null;
}

/** Whether the launcher recorded in `e` still runs (the same process, not a newer one with its pid). */
async function launcherAlive(e: LaunchedServer): Promise<boolean> {
  if (!processAlive(e.launcherPid)) return false;
  return e.launcherStart === null || (await processStartTime(e.launcherPid)) === e.launcherStart;
}

let ownStart: Promise<string | null> | null = null;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LaunchedRegistry {
  readonly file: string;

  constructor(dataDir: string = userDataDir()) {
    this.file = join(dataDir, STATE_FILE);
  }

  list(): LaunchedServer[] {
    try {
      const raw = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return Array.isArray(raw) ? raw.filter(isEntry) : [];
    } catch {
      return []; // none yet, or a torn file: nothing to offer
    }
  }

  add(entry: LaunchedServer): void {
    this.write([...this.list().filter((e) => e.pgid !== entry.pgid), entry]);
  }

  remove(pgid: number): void {
    const all = this.list();
    if (all.some((e) => e.pgid === pgid)) this.write(all.filter((e) => e.pgid !== pgid));
  }

  /**
   * Servers still running whose launcher is gone. Entries whose group has ended are crossed
   * out on the way; a group whose launcher still runs belongs to that launcher.
   */
  async leftovers(): Promise<LaunchedServer[]> {
    const out: LaunchedServer[] = [];
    for (const e of this.list()) {
      if ((await findGroupProcesses(e.pgid)).length === 0) this.remove(e.pgid);
      else if (!(await launcherAlive(e))) out.push(e);
    }
    return out;
  }

  /** Ask the server to stop (SIGTERM), force its whole group after `graceMs`; true when it is gone. */
  async end(entry: LaunchedServer, graceMs = 10_000): Promise<boolean> {
    const control = processControl();
    await control.askToStop(entry.pgid);
    const gone = async (waitMs: number) => {
      const deadline = Date.now() + waitMs;
      while ((await findGroupProcesses(entry.pgid)).length > 0) {
        if (Date.now() > deadline) return false;
        await sleep(100);
      }
      return true;
    };
    let ok = await gone(graceMs);
    if (!ok) {
      await control.killGroup(entry.pgid);
      ok = await gone(3000);
    }
    if (ok) this.remove(entry.pgid);
    return ok;
  }

  /** Write down each server `sup` launches (restarts too), and cross it out once its group is gone. */
  track(sup: Supervisor, port: number | null): void {
    let recorded: number | null = null;
    ownStart ??= processStartTime(process.pid);
    const record = () => {
      const pid = sup.pid;
      if (pid === null || pid === recorded) return;
      recorded = pid;
      const entry = {
        pgid: pid,
        command: sup.launch?.display ?? '',
        port,
        startedAt: new Date().toISOString(),
        launcherPid: process.pid,
      };
      this.add({ ...entry, launcherStart: null });
      void ownStart?.then((launcherStart) => launcherStart && this.add({ ...entry, launcherStart }));
    };
    sup.on('progress', record);
    sup.on('ready', record);
    sup.on('state', (s) => {
      if (s !== 'exited' && s !== 'failed') return;
      const pgid = recorded;
      if (pgid === null) return;
      void findGroupProcesses(pgid).then(
        (alive) => alive.length === 0 && this.remove(pgid),
        () => undefined,
      );
    });
  }

  private write(entries: LaunchedServer[]): void {
    try {
      mkdirSync(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, `${JSON.stringify(entries, null, 2)}\n`);
      renameSync(tmp, this.file);
    } catch {
      // A read-only data folder must not stop a launch: the server is still stopped normally.
    }
  }
}

function isEntry(x: unknown): x is LaunchedServer {
  const e = x as LaunchedServer;
  return (
    !!e &&
    Number.isInteger(e.pgid) &&
    e.pgid > 1 &&
    typeof e.command === 'string' &&
    Number.isInteger(e.launcherPid) &&
    (e.launcherStart === null || typeof e.launcherStart === 'string')
  );
}

/** "pgid 1234, port 8000, since 14:02: vllm serve Qwen/Qwen3-8B --port 8000" */
export function describeLaunched(e: LaunchedServer): string {
  return `process group ${e.pgid}${e.port ? `, port ${e.port}` : ''}, started ${e.startedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}: ${e.command}`;
}
