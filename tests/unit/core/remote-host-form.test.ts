/** The Server view's remote host and the Run view's matrix, as the ssh target and the `speedmatrix run` there. */
import { describe, expect, it } from 'vitest';
import type { RunForm } from '#shared/ipc/forms';
import { remoteHostOf, sshTargetOf } from '../../../src-main/hosts/app-core/remote-host';
import { remoteRunArgs } from '../../../src-main/hosts/app-core/remote-runs';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import { Command } from 'commander';
import { addMatrixOptions } from '../../../src-main/hosts/cli/commands/run-flags';
import { runConfigFrom } from '../../../src-main/workflows/inputs/run-input';
import { toConfig } from '../../../src-main/hosts/app-core/run-control';

const RUN: RunForm = {
  contexts: [0, 8192],
  concurrency: [1, 4],
  prefillContexts: [],
  secondsPerMeasurement: 20,
  maxOutputTokens: 2048,
  tokenTargeting: 'exact',
  repeat: 1,
  precisionPercent: null,
};
const READY = { baseUrl: 'http://127.0.0.1:8000', model: 'fara' } as ServerTarget;

describe('the remote host of the Server view', () => {
  it('takes ssh options one KEY=VALUE per line, blank lines and spaces around them left out', () => {
    const host = remoteHostOf({ sshHost: 'gpu-box', sshOptions: ' Port=2222\n\nIdentityFile=/k \n' });
    expect(sshTargetOf(host)).toEqual({ host: 'gpu-box', options: ['Port=2222', 'IdentityFile=/k'] });
  });

  it('names the field to fix: an empty or odd host, an option that is not KEY=VALUE', () => {
    expect(() => sshTargetOf({ host: ' ', options: [] })).toThrow(/^SSH host: give an alias from ~\/\.ssh\/config/);
    expect(() => sshTargetOf({ host: '-oProxyCommand=x', options: [] })).toThrow(/^SSH host: "-oProxyCommand=x"/);
    expect(() => sshTargetOf({ host: 'gpu-box', options: ['Port 2222'] })).toThrow(/^SSH options: "Port 2222"/);
  });
});

describe('the run on the remote host', () => {
  it('measures the Run view’s matrix against the server there, by its URL on the host', () => {
    const { args, resumeArgs } = remoteRunArgs(RUN, { ready: READY, simSpeed: null });
    expect(args).toEqual([
      ...['run', '--url', 'http://127.0.0.1:8000', '--json-progress', '--model', 'fara'],
      ...['--contexts', '0,8192', '--concurrency', '1,4', '--duration', '20', '--max-output', '2048'],
      ...['--token-targeting', 'exact', '--repeat', '1', '--out', 'session.speedmatrix.json'],
    ]);
    expect(resumeArgs).toEqual([
      ...['run', '--resume', 'session.speedmatrix.json', '--url', 'http://127.0.0.1:8000', '--json-progress'],
    ]);
  });

  it('tells the run a simulator’s speed-up, names no key (it reads the key from its environment), and passes prefill and precision', () => {
    const form = { ...RUN, prefillContexts: [8192], precisionPercent: 2, minSecondsPerMeasurement: 5 };
    const { args, resumeArgs } = remoteRunArgs(form, { ready: READY, simSpeed: 10 });
    for (const a of [args, resumeArgs]) {
      expect(a.join(' ')).toContain('--sim-speed 10 --json-progress');
      expect(a.join(' ')).not.toMatch(/sk-|--api-key/);
    }
    expect(args.join(' ')).toContain('--prefill-contexts 8192');
    expect(args.join(' ')).toContain('--precision 2 --min-duration 5');
  });
});

describe('the flags the app sends to the host', () => {
  /** The host's `speedmatrix run` reads them with the CLI's own options and rules. */
  function hostConfig(args: string[]) {
    const run = addMatrixOptions(new Command('run').exitOverride())
      .option('--url <url>')
      .option('--model <name>')
      .option('--sim-speed <x>')
      .option('--json-progress')
      .option('--out <file>');
    run.parse(args.slice(1), { from: 'user' });
    return runConfigFrom(run.opts());
  }

  it.each([
    ['a plain matrix', RUN],
    [
      'prefill, repeats and estimate sizing',
      { ...RUN, prefillContexts: [8192, 262144], repeat: 3, tokenTargeting: 'estimate' as const },
    ],
    ['stopping at a precision', { ...RUN, precisionPercent: 1.5, minSecondsPerMeasurement: 8 }],
    ['drawn output lengths and a shared prefix', { ...RUN, outputLen: '128-512', sharedPrefix: 1024 }],
    // No --concurrency: the host's run plans the default levels against its server's KV cache.
    ['automatic requests at once', { ...RUN, concurrency: [] }],
  ])('mean there the run the form means here: %s', (_, form: RunForm) => {
    const { args } = remoteRunArgs(form, { ready: READY, simSpeed: 4 });
    expect(hostConfig(args)).toEqual({ ...toConfig(form), simSpeed: 4 });
  });
});
