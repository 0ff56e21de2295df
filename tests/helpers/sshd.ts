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
}

/** The processes whose environment names `home` as HOME: what sessions of this server started. */
function processesOfHome(home: string): number[] {
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
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (d) => (log += d));
  const options = [
    `Port=${port}`,
    `IdentityFile=${join(dir, 'client_key')}`,
    'IdentitiesOnly=yes',
    `UserKnownHostsFile=${knownHosts}`,
    'GlobalKnownHostsFile=/dev/null',
    'StrictHostKeyChecking=yes',
  ];
  const sshd: Sshd = {
    port,
    host: 'root@127.0.0.1',
    options,
    home,
    strangerKey: join(dir, 'stranger_key'),
    stop: () => {
      child.kill('SIGTERM');
      for (const pid of processesOfHome(home)) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          // already gone
        }
      }
    },
  };
  for (let i = 0; i < 100; i++) {
    const r = spawnSync('ssh', [...options.flatMap((o) => ['-o', o]), '-o', 'BatchMode=yes', sshd.host, 'true']);
    if (r.status === 0) return sshd;
    if (child.exitCode !== null) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  child.kill('SIGKILL');
  throw new Error(`sshd did not accept a login on port ${port}:\n${log}`);
}
