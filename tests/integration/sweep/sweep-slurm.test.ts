/**
 * `speedmatrix sweep --slurm` against a real one-node Slurm (munged, slurmctld, slurmd started
 * by tests/helpers/slurm.ts): each variant an sbatch job on the node running the simulator on a
 * port of its own, a variant whose server fails with its reason and log tail, a cancel with
 * scancel, and a resume that submits only what is missing.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { SIM, SIM_MATRIX, type SlurmCluster, slurmTest as it } from '../../helpers/slurm';

const MATRIX = [...SIM_MATRIX, '--slurm-poll', '1'];
const GPU = '--slurm-option=--gres=gpu:1';

const session = async (file: string) => {
  const s = await readSessionFile(file);
  if (!s.ok) throw new Error(s.error.message);
  return s.data;
};
const manifestOf = (dir: string) => JSON.parse(readFileSync(join(dir, 'sweep.json'), 'utf8'));
const cli = (slurm: SlurmCluster, args: string[]) => runCli(args, { env: slurm.env, timeoutMs: 300_000 });
const scontrol = (slurm: SlurmCluster, ...args: string[]) =>
  execFileSync('scontrol', args, { env: slurm.env, encoding: 'utf8' });

/** The CLI as a child whose output the test reads as it comes, to act at the right moment. */
function startCli(
  slurm: SlurmCluster,
  args: string[],
): { child: ChildProcess; out: () => string; exit: Promise<number | null> } {
  const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
    cwd: ROOT,
    env: slurm.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  return { child, out: () => out, exit: new Promise((r) => child.on('close', r)) };
}

async function until(what: string, ok: () => boolean, text: () => string, ms = 180_000): Promise<void> {
  const end = Date.now() + ms;
  while (!ok()) {
    if (Date.now() > end) throw new Error(`${what} did not happen:\n${text()}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe('speedmatrix sweep --slurm', () => {
  it('runs each variant as its own job on the node, each on a free port with the node’s hardware, and writes the report when the last ends', async ({
    slurm,
    tempDir,
  }) => {
    const dir = join(tempDir('sm-slurm-sweep-'), 'sweep');
    const r = await cli(slurm, [
      'sweep',
      '--slurm',
      GPU,
      '--vary',
      '--max-num-seqs=4,16',
      ...MATRIX,
      '--out-dir',
      dir,
      ...SIM,
    ]);
    expect(r.stderr, slurm.logs()).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(
      /Sweep folder .* is on this machine's own storage \((tmpfs|overlay|ext4|XFS|Btrfs|ZFS|file system type 0x[0-9a-f]+)\), not storage the nodes share/,
    );
    const ids = [...r.stdout.matchAll(/: job (\d+) submitted\./g)].map((m) => m[1]);
    expect(ids).toHaveLength(2);
    expect(r.stdout).toContain('Jobs: pending 0, running 0, done 2, failed 0');
    expect(r.stdout).toContain(`A  --max-num-seqs=4  job ${ids[0]}  done on ${slurm.node}`);

    // Each job asked for one of the node's two GPUs.
    expect(scontrol(slurm, 'show', 'job', '-o', ids[0])).toMatch(/TresPerNode=gres:gpu:1/);
    const a = await session(join(dir, 'max-num-seqs-4.speedmatrix.json'));
    const b = await session(join(dir, 'max-num-seqs-16.speedmatrix.json'));
    expect(a.cells.find((c) => c.context === 8192)?.status).toBe('queued');
    expect(b.server.argv.join(' ')).toMatch(/--max-num-seqs[ =]16/);
    const ports = [a, b].map((s) => new URL(s.server.url ?? 'http://x').port);
    expect(ports.every((p) => Number(p) > 0)).toBe(true);
    expect(ports[0]).not.toBe(ports[1]);
    // Each job recorded the hardware of what it launched on its node: here the simulator's profile GPU.
    for (const s of [a, b])
      expect(s.hardware.gpus.map((g) => g.name)).toEqual(['NVIDIA RTX PRO 6000 Blackwell Server Edition (simulated)']);

    expect(manifestOf(dir).variants.map((v: { state: string }) => v.state)).toEqual(['done', 'done']);
    expect(readFileSync(join(dir, 'sweep.md'), 'utf8')).toContain(
      '| B | --max-num-seqs=16 | max-num-seqs-16.speedmatrix.json |',
    );
    expect(readFileSync(join(dir, 'slurm', `max-num-seqs-16-${ids[1]}.log`), 'utf8')).toContain('done');

    const status = await cli(slurm, ['sweep', '--status', dir]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain(`B  --max-num-seqs=16  job ${ids[1]}  done on ${slurm.node}`);
    const again = await cli(slurm, ['sweep', '--resume', dir]);
    expect(again.code).toBe(0);
    expect(again.stdout).toContain('Nothing to submit: every variant is done or has a job waiting or running.');
  }, 600_000);

  it('shows a failed job with its reason and the tail of its log, and still reports the variant that ran', async ({
    slurm,
    tempDir,
  }) => {
    const dir = join(tempDir('sm-slurm-fail-'), 'sweep');
    const r = await cli(slurm, [
      'sweep',
      '--slurm',
      GPU,
      '--vary',
      '--max-model-len=99999999,32768',
      ...MATRIX,
      '--out-dir',
      dir,
      ...SIM,
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Jobs: pending 0, running 0, done 1, failed 1');
    expect(r.stdout).toMatch(
      /A {2}--max-model-len=99999999 {2}job \d+ {2}failed on .*: .*greater than the derived max_model_len/,
    );
    // The log's tail, under the failed variant.
    expect(r.stdout).toMatch(/ {5}\| .*the server did not start/);
    expect(r.stdout).toContain('Run what is not done with: speedmatrix sweep --resume');
    const m = manifestOf(dir);
    expect(m.variants[0]).toMatchObject({ state: 'failed', failure: expect.stringContaining('max_model_len') });
    expect(m.variants[1].state).toBe('done');
    expect(readFileSync(join(dir, 'sweep.md'), 'utf8')).toMatch(
      /\| A \| --max-model-len=99999999 \| — \| Did not start: /,
    );
  }, 600_000);

  it('applies --ready-timeout to the server each job starts on its node, recorded in the folder for a resume', async ({
    slurm,
    tempDir,
  }) => {
    const dir = join(tempDir('sm-slurm-ready-'), 'sweep');
    // A server that takes ten minutes to load: without the deadline passed on, the job would wait 20 minutes.
    const r = await cli(slurm, [
      'sweep',
      '--slurm',
      GPU,
      '--ready-timeout',
      '2',
      '--vary',
      '--max-num-seqs=4',
      ...MATRIX,
      '--out-dir',
      dir,
      ...SIM,
      '--sim-load-seconds',
      '6000',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('Jobs: pending 0, running 0, done 0, failed 1');
    expect(r.stdout).toMatch(/A {2}--max-num-seqs=4 {2}job \d+ {2}failed on .*: The server was not ready after 2 s/);
    expect(manifestOf(dir).slurm.readyTimeoutS).toBe(2);
  }, 120_000);

  it('cancels the jobs still waiting on Ctrl-C, and --resume submits only the cancelled variant', async ({
    slurm,
    tempDir,
  }) => {
    const dir = join(tempDir('sm-slurm-cancel-'), 'sweep');
    // Both jobs are submitted held; the test lets only the first one run.
    const run = startCli(slurm, [
      'sweep',
      '--slurm',
      GPU,
      '--slurm-option=--hold',
      '--yes',
      '--vary',
      '--max-num-seqs=4,16',
      ...MATRIX,
      '--out-dir',
      dir,
      ...SIM,
    ]);
    await until('two submissions', () => /job \d+ submitted[\s\S]*job \d+ submitted/.test(run.out()), run.out);
    const [first, second] = [...run.out().matchAll(/: job (\d+) submitted\./g)].map((m) => m[1]);
    const held = await cli(slurm, ['sweep', '--status', dir]);
    expect(held.stdout).toContain(`B  --max-num-seqs=16  job ${second}  pending: JobHeldUser`);
    scontrol(slurm, 'release', first);
    await until('the first job done', () => run.out().includes('done 1'), run.out);
    const measured = statSync(join(dir, 'max-num-seqs-4.speedmatrix.json')).mtimeMs;
    run.child.kill('SIGINT');
    expect(await run.exit).toBe(130);
    expect(run.out()).toContain(`Cancelled job ${second}.`);
    expect(run.out()).toContain(`B  --max-num-seqs=16  job ${second}  failed: cancelled`);
    expect(manifestOf(dir).variants.map((v: { state: string }) => v.state)).toEqual(['done', 'pending']);
    expect(scontrol(slurm, 'show', 'job', '-o', second)).toMatch(/JobState=CANCELLED/);

    const resumed = await cli(slurm, ['sweep', '--resume', dir, GPU, '--slurm-poll', '1']);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect([...resumed.stdout.matchAll(/(\S+): job \d+ submitted\./g)].map((m) => m[1])).toEqual(['--max-num-seqs=16']);
    expect(resumed.stdout).toContain('Jobs: pending 0, running 0, done 2, failed 0');
    // Nothing measured twice: the first variant's session was left as it was.
    expect(statSync(join(dir, 'max-num-seqs-4.speedmatrix.json')).mtimeMs).toBe(measured);
  }, 600_000);
});
