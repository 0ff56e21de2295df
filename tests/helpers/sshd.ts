/**
 * A real OpenSSH server (Debian's openssh-server, /usr/sbin/sshd) on 127.0.0.1 for the remote
 * tests: a free port, a temporary host key, one authorized client key, and a "remote home" of
 * its own (HOME and PATH set by SetEnv), so what runs over it never touches this machine's real
 * home. The client options that reach it (`--ssh-option`s) come with it.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../src-main/engine/server/port';
import { signalChild } from '../../src-main/platform/processes/signal-child';

export const SSHD = '/usr/sbin/sshd';
export const sshdAvailable = existsSync(SSHD) && spawnSync('ssh', ['-V']).status === 0;

export interface Sshd {
  port: number;
  /** What `--ssh` takes. */
  host: string;
  /** The `--ssh-option`s that reach this server with its key, its host key known. */
  options: string[];
  /** The remote home: HOME of every session. */
  home: string;
  /** A client key the server does not accept. */
  strangerKey: string;
  /** Stops sshd and every process still running with this server's home (detached runs, their servers). */
  stop(): void;
  /** Closes the listener, as a host gone from the network: new logins are refused, what runs there goes on. */
  unreachable(): void;
  /** Listens again on the same port with the same keys; resolves once a login works. */
  reachable(): Promise<void>;
}

/**
 * The ssh client that process `parent` runs to follow a run's progress file (its command line
 * tails it), and of the run `runId` when given; null when there is none.
 */
export function followClientOf(parent: number, runId?: string): number | null {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const ppid = Number(readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (ppid === parent && cmd.startsWith('ssh\0') && cmd.includes('tail -c') && (!runId || cmd.includes(runId)))
        return Number(name);
    } catch {
      // gone meanwhile
    }
  }
  return null;
}

/** The files under `dir` (recursively) whose bytes hold `secret`. */
export function filesHolding(dir: string, secret: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .filter((f) => readFileSync(f).includes(secret));
}

/** The command lines holding `secret` (what `ps` shows anyone on the machine), of `pids` or of every process. */
export function commandLinesHolding(secret: string, pids?: number[]): string[] {
  return (pids?.map(String) ?? readdirSync('/proc').filter((n) => /^\d+$/.test(n))).flatMap((n) => {
    try {
      const cmd = readFileSync(`/proc/${n}/cmdline`, 'utf8');
      return cmd.includes(secret) ? [cmd.replace(/\0/g, ' ')] : [];
    } catch {
      return [];
    }
  });
}

/** The processes whose environment names `home` as HOME: what sessions of this server started. */
export function processesOfHome(home: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      if (readFileSync(`/proc/${name}/environ`, 'latin1').split('\0').includes(`HOME=${home}`)) pids.push(Number(name));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return pids;
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'speedmatrix-test', '-f', file]);
}

/** Start sshd in `dir`; `path` is the PATH a session there gets. */
export async function startSshd(dir: string, path: string[]): Promise<Sshd> {
  mkdirSync(dir, { recursive: true });
  // sshd refuses to start without its privilege-separation folder (Debian makes it at service start).
  mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const home = join(dir, 'home');
  mkdirSync(home, { recursive: true, mode: 0o700 });
  for (const k of ['host_key', 'client_key', 'stranger_key']) keygen(join(dir, k));
  const authorized = join(dir, 'authorized_keys');
  writeFileSync(authorized, readFileSync(join(dir, 'client_key.pub')));
  chmodSync(authorized, 0o600);
  const port = await freePort();
  const config = join(dir, 'sshd_config');
  writeFileSync(
    config,
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host_key')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${authorized}`,
      'PubkeyAuthentication yes',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'PermitRootLogin prohibit-password',
      'UsePAM no',
      // The keys live under the OS temp folder, which is world-writable: StrictModes would refuse them.
      'StrictModes no',
      `SetEnv HOME=${home} PATH=${path.join(':')}`,
      '',
    ].join('\n'),
  );
  const knownHosts = join(dir, 'known_hosts');
  writeFileSync(knownHosts, `[127.0.0.1]:${port} ${readFileSync(join(dir, 'host_key.pub'), 'utf8')}`);
  let log = '';
  const listen = (): ChildProcess => {
    const c = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    c.stderr!.on('data', (d) => (log += d));
    return c;
  };
  let child = listen();
  const options = [
    `Port=${port}`,
    `IdentityFile=${join(dir, 'client_key')}`,
    'IdentitiesOnly=yes',
    `UserKnownHostsFile=${knownHosts}`,
    'GlobalKnownHostsFile=/dev/null',
    'StrictHostKeyChecking=yes',
  ];
  const host = 'root@127.0.0.1';
  const loginWorks = async (): Promise<boolean> => {
    for (let i = 0; i < 100; i++) {
      const r = spawnSync('ssh', [...options.flatMap((o) => ['-o', o]), '-o', 'BatchMode=yes', host, 'true']);
      if (r.status === 0) return true;
      if (child.exitCode !== null) break;
      await new Promise((res) => setTimeout(res, 100));
    }
    return false;
  };
  const sshd: Sshd = {
    port,
    host,
    options,
    home,
    strangerKey: join(dir, 'stranger_key'),
    unreachable: () => void signalChild(child, 'SIGTERM'),
    reachable: async () => {
      child = listen();
      if (!(await loginWorks())) throw new Error(`sshd did not listen again on port ${port}:\n${log}`);
    },
    stop: () => {
      signalChild(child, 'SIGTERM');
      for (const pid of processesOfHome(home)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  if (await loginWorks()) return sshd;
  signalChild(child, 'SIGKILL');
  throw new Error(`sshd did not accept a login on port ${port}:\n${log}`);
}
