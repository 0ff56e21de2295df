/**
 * How a Slurm sweep's variant state is read: squeue, sacct and scontrol output as Slurm 22.05
 * prints it, and which word wins when the job's own outcome file and the scheduler both speak.
 */
import { describe, expect, it } from 'vitest';
import { parseSacct, parseScontrol, parseSqueue } from '../../../src-main/workflows/sweep/slurm-scheduler';
import { slurmOptionProblems, variantStatus } from '../../../src-main/workflows/sweep/slurm-sweep';

const variant = { slug: 'max-num-seqs-4', label: '--max-num-seqs=4', state: 'pending' as const, failure: null };
const job = (state: string, reason: string | null = null) => ({
  id: '7',
  state,
  reason,
  node: 'gpu01',
  exitCode: null,
});

describe('Slurm output', () => {
  it('reads squeue lines, an unset reason or node as none', () => {
    expect(parseSqueue('1|PENDING|None|\n2|RUNNING|None|gpu01\n3|PENDING|JobHeldUser|\n')).toEqual([
      { id: '1', state: 'PENDING', reason: null, node: null, exitCode: null },
      { id: '2', state: 'RUNNING', reason: null, node: 'gpu01', exitCode: null },
      { id: '3', state: 'PENDING', reason: 'JobHeldUser', node: null, exitCode: null },
    ]);
  });

  it('reads sacct jobs, not their steps, and "CANCELLED by 0" as CANCELLED', () => {
    const text =
      '12|CANCELLED by 0|None|gpu01|0:15\n12.batch|CANCELLED||gpu01|0:15\n13|FAILED|NonZeroExitCode|gpu02|1:0\n';
    expect(parseSacct(text)).toEqual([
      { id: '12', state: 'CANCELLED', reason: null, node: 'gpu01', exitCode: '0:15' },
      { id: '13', state: 'FAILED', reason: 'NonZeroExitCode', node: 'gpu02', exitCode: '1:0' },
    ]);
  });

  it('reads scontrol show job -o where there is no accounting', () => {
    const line =
      'JobId=1 JobName=job.sh UserId=root(0) GroupId=root(0) Priority=4294901759 JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 NodeList=vm BatchHost=vm';
    expect(parseScontrol(`${line}\n`)).toEqual([
      { id: '1', state: 'FAILED', reason: 'NonZeroExitCode', node: 'vm', exitCode: '3:0' },
    ]);
  });
});

describe('a variant’s state on the cluster', () => {
  it('is waiting with Slurm’s reason while pending, running once it runs', () => {
    expect(variantStatus(variant, '7', null, job('PENDING', 'Resources'))).toMatchObject({
      state: 'pending',
      reason: 'Resources',
    });
    expect(variantStatus(variant, '7', null, job('RUNNING'))).toMatchObject({ state: 'running', node: 'gpu01' });
  });

  it('takes the job’s own outcome over the scheduler’s word', () => {
    const failed = { state: 'failed' as const, failure: 'the server did not start: OOM', node: 'gpu01' };
    expect(variantStatus(variant, '7', failed, job('COMPLETING'))).toMatchObject({
      state: 'failed',
      reason: 'the server did not start: OOM',
    });
    const partial = { state: 'partial' as const, failure: null, node: 'gpu01' };
    expect(variantStatus(variant, '7', partial, job('CANCELLED')).reason).toBe(
      'cancelled: stopped before its last cell; resume the sweep to finish it',
    );
  });

  it('says how a job ended without an outcome: time limit, node failure, exit code', () => {
    expect(variantStatus(variant, '7', null, job('TIMEOUT', 'TimeLimit')).reason).toBe(
      'ran past its time limit (TimeLimit)',
    );
    expect(variantStatus(variant, '7', null, { ...job('FAILED', 'NonZeroExitCode'), exitCode: '1:0' }).reason).toBe(
      'failed (NonZeroExitCode, exit code 1:0)',
    );
    expect(variantStatus(variant, '7', null, undefined)).toMatchObject({ state: 'failed' });
    expect(variantStatus(variant, null, null, undefined)).toMatchObject({
      state: 'pending',
      reason: 'not submitted: resume the sweep to submit it',
    });
  });
});

describe('sbatch options', () => {
  it('refuses an --export that would drop the variant, and warns about a fixed port', () => {
    expect(slurmOptionProblems(['--export=NONE'], []).refuse).toMatch(/leave --export out/);
    expect(slurmOptionProblems(['--export=ALL,FOO=1'], []).refuse).toBeNull();
    expect(slurmOptionProblems(['--output=x.log'], []).refuse).toMatch(/set by speedmatrix/);
    expect(slurmOptionProblems([], ['vllm', 'serve', 'm', '--port', '8000']).warn).toMatch(/--port 8000/);
    expect(slurmOptionProblems(['--gres=gpu:1'], ['vllm', 'serve', 'm']).warn).toBeNull();
  });
});
