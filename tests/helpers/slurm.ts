/**
 * A one-node Slurm cluster for a test file: Debian's munged, slurmctld and slurmd, run as root in
 * the foreground with a temporary munge key and socket, a temporary slurm.conf (this machine as
 * node, 127.0.0.1, free ports, Gres=gpu:2 backed by placeholder device files,
 * proctrack/linuxproc, task/none) and temporary state folders. Clients (sbatch, squeue, scancel)
 * find it through SLURM_CONF in `env`. Everything is stopped and removed by `stop()`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { tempTest, webTest } from './fixtures';
import { freePort } from './sim';
import { signalChild } from '../../src-main/platform/processes/signal-child';

/** A small simulator matrix for a sweep's jobs. */
export const SIM_MATRIX = [
  '--contexts',
  '8k',
  '--concurrency',
  '8',
  '--prefill-contexts',
  'none',
  '--duration',
  '5',
  '--max-output',
  '2048',
  '--sim-speed',
  '10',
];
/** The simulator as a sweep's server command, without --port: each job takes a port free on its node. */
export const SIM = [
  '--',
  'speedmatrix',
  'sim',
  'serve',
  'microsoft/Fara1.5-4B',
  '--sim-profile',
  'rtx-pro-6000-fara-4b-bf16',
  '--sim-speed',
  '10',
];

export interface SlurmCluster {
  /** The temporary folder holding the configuration, state and daemon logs. */
  dir: string;
  /** The node's name (this machine's host name). */
  node: string;
  /** Environment for the Slurm clients and for anything that calls them. */
  env: NodeJS.ProcessEnv;
  /** The daemons' logs, for a failing test's message. */
  logs(): string;
  stop(): Promise<void>;
}

function slurmConf(dir: string, node: string, ports: { ctld: number; slurmd: number }): string {
  return [
    'ClusterName=smtest',
    `SlurmctldHost=${node}(127.0.0.1)`,
    `SlurmctldPort=${ports.ctld}`,
    `SlurmdPort=${ports.slurmd}`,
    'AuthType=auth/munge',
    `AuthInfo=socket=${join(dir, 'munge.sock')}`,
    'CredType=cred/munge',
    'ProctrackType=proctrack/linuxproc',
    'TaskPlugin=task/none',
    'SchedulerType=sched/builtin',
    'SelectType=select/cons_tres',
    'SelectTypeParameters=CR_Core',
    `StateSaveLocation=${join(dir, 'state')}`,
    `SlurmdSpoolDir=${join(dir, 'spool')}`,
    `SlurmctldPidFile=${join(dir, 'slurmctld.pid')}`,
    `SlurmdPidFile=${join(dir, 'slurmd.pid')}`,
    `SlurmctldLogFile=${join(dir, 'slurmctld.log')}`,
    `SlurmdLogFile=${join(dir, 'slurmd.log')}`,
    'SlurmUser=root',
    'SlurmdUser=root',
    'ReturnToService=2',
    'GresTypes=gpu',
    'JobAcctGatherType=jobacct_gather/none',
    'AccountingStorageType=accounting_storage/none',
    'MpiDefault=none',
    // Ended jobs stay known to squeue/scontrol for the whole test file (there is no accounting database here).
    'MinJobAge=3600',
    `NodeName=${node} NodeAddr=127.0.0.1 CPUs=2 RealMemory=1000 Gres=gpu:2 State=UNKNOWN`,
    `PartitionName=debug Nodes=${node} Default=YES MaxTime=INFINITE State=UP`,
    '',
  ].join('\n');
}

function daemon(cmd: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
  const child = spawn(cmd, args, { env, stdio: 'ignore' });
  child.on('error', () => undefined);
  return child;
}

async function waitFor(what: string, ok: () => boolean, logs: () => string, timeoutMs = 90_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!ok()) {
    if (Date.now() > until) throw new Error(`Slurm test cluster: ${what} did not happen in time.\n${logs()}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const tryRun = (cmd: string, args: string[], env: NodeJS.ProcessEnv): string => {
  try {
    return execFileSync(cmd, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return '';
  }
};

export async function startSlurm(): Promise<SlurmCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'sm-slurm-'));
  const node = hostname();
  for (const sub of ['state', 'spool']) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, 'munge.key'), randomBytes(1024), { mode: 0o600 });
  // Placeholder GPU device files: slurmd only checks that a gres File exists.
  for (const i of [0, 1]) writeFileSync(join(dir, `gpu${i}`), '');
  const conf = join(dir, 'slurm.conf');
  writeFileSync(conf, slurmConf(dir, node, { ctld: await freePort(), slurmd: await freePort() }));
  writeFileSync(join(dir, 'gres.conf'), `NodeName=${node} Name=gpu File=${join(dir, 'gpu[0-1]')}\n`);
  const env = { ...process.env, SLURM_CONF: conf };
  const logs = () =>
    ['munged.log', 'slurmctld.log', 'slurmd.log']
      .map((f) => {
        try {
          return `--- ${f}\n${readFileSync(join(dir, f), 'utf8').split('\n').slice(-15).join('\n')}`;
        } catch {
          return `--- ${f}: none`;
        }
      })
      .join('\n');

  const daemons: ChildProcess[] = [];
  const stop = async () => {
    for (const d of daemons.reverse()) {
      if (d.exitCode !== null || d.signalCode !== null) continue;
      const gone = new Promise((r) => d.once('exit', r));
      signalChild(d, 'SIGTERM');
      await Promise.race([gone, new Promise((r) => setTimeout(r, 5000))]);
      signalChild(d, 'SIGKILL');
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    if (process.getuid?.() !== 0)
      throw new Error('Slurm test cluster: slurmctld and slurmd run as root here; run the tests as root.');
    daemons.push(
      daemon(
        'munged',
        [
          '--foreground',
          '--force',
          `--key-file=${join(dir, 'munge.key')}`,
          `--socket=${join(dir, 'munge.sock')}`,
          `--pid-file=${join(dir, 'munged.pid')}`,
          `--log-file=${join(dir, 'munged.log')}`,
          `--seed-file=${join(dir, 'munged.seed')}`,
        ],
        env,
      ),
    );
    await waitFor('munged listening', () => tryRun('ls', [join(dir, 'munge.sock')], env) !== '', logs);
    daemons.push(daemon('slurmctld', ['-D', '-f', conf], env));
    daemons.push(daemon('slurmd', ['-D', '-f', conf], env));
    await waitFor('the node idle', () => /idle/.test(tryRun('sinfo', ['-h', '-o', '%T'], env)), logs);
  } catch (e) {
    await stop();
    throw e;
  }
  return { dir, node, env, logs, stop };
}

/** The `slurm` fixture: the one-node cluster for the test file, started on the first test that asks for it. */
// vitest reads a fixture's dependencies from its destructuring pattern: an empty one means none.
async function slurmFixture(
  // eslint-disable-next-line no-empty-pattern
  {},
  { onCleanup }: { onCleanup: (fn: () => Promise<void>) => void },
): Promise<SlurmCluster> {
  const cluster = await startSlurm();
  onCleanup(() => cluster.stop());
  return cluster;
}

export const slurmTest = tempTest.extend('slurm', { scope: 'file' }, slurmFixture);
/** The cluster with the app's core behind the bridge and Chromium (the core asks squeue from this process). */
export const slurmWebTest = webTest.extend('slurm', { scope: 'file' }, slurmFixture);
