/**
 * The pure parts of `--ssh`: the ssh argument list and the one remote line (quoted so the remote
 * shell gives back the exact words), and following a remote run across drops and deaths.
 */
import { EventEmitter } from 'node:events';
import type { ChildProcess } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellSplit } from '#shared/shell-quote';
import { parseSshTarget, remoteScript, sshArgs } from '../../../src-main/workflows/remote/ssh';
import { compareVersions } from '../../../src-main/workflows/remote/remote-cli';
import { Waker, followUntilEnded } from '../../../src-main/workflows/remote/follow';
import { launchOptionsFromCommand } from '../../../src-main/engine/server/command-line';
import { buildLaunch } from '../../../src-main/engine/server/launch';
import { type Follow, type RemoteState, keyOutOfCommand } from '../../../src-main/workflows/remote/remote-run';
import { passedFlags } from '../../../src-main/hosts/cli/commands/remote-drive';

describe('the ssh command line', () => {
  it('puts the user’s -o options before BatchMode=yes (ssh keeps the first value), and the host after --', () => {
    const t = parseSshTarget('gpu-box', ['BatchMode=no', 'Port=2222']);
    const argv = sshArgs(t, 'true');
    expect(argv.slice(0, 6)).toEqual(['-o', 'BatchMode=no', '-o', 'Port=2222', '-o', 'BatchMode=yes']);
    expect(argv.slice(-3)).toEqual(['--', 'gpu-box', 'true']);
  });

  it('refuses a host that ssh would read as an option, and an option that is not KEY=VALUE', () => {
    expect(() => parseSshTarget('-oProxyCommand=touch /tmp/x')).toThrow(/is not a host/);
    expect(() => parseSshTarget('gpu box')).toThrow(/is not a host/);
    expect(() => parseSshTarget('gpu-box', ['Port 22'])).toThrow(/--ssh-option: "Port 22" is not KEY=VALUE/);
  });

  it('quotes the remote line so the remote shell hands the script its arguments word for word', () => {
    const args = ['a b', "it's", '$(reboot)', '`id`', 'x;y', ''];
    const words = shellSplit(remoteScript('echo "$@"', args));
    expect(words).toEqual(['sh', '-c', 'echo "$@"', 'sh', ...args]);
  });

  it('compares versions by their numbers', () => {
    expect(compareVersions('0.1.0', '0.1.0')).toBe(0);
    expect(compareVersions('0.0.9', '0.1.0')).toBe(-1);
    expect(compareVersions('0.10.0', '0.9.3')).toBe(1);
  });

  it('turns parsed flags back into the remote arguments, repeated flags once per value, local ones left out', () => {
    const flags = { contexts: '0,8k', yes: true, demo: false, vary: ['--a=1,2', '--b=x'], ssh: 'h', out: 'f' };
    expect(passedFlags(flags, new Set(['ssh', 'out']))).toEqual([
      '--contexts',
      '0,8k',
      '--yes',
      '--vary',
      '--a=1,2',
      '--vary',
      '--b=x',
    ]);
  });
});

/** A scripted remote: each follow delivers some bytes of the progress file, then ends or drops. */
function scripted(steps: { bytes: number; ended: boolean }[], states: Partial<RemoteState>[]) {
  const offsets: number[] = [];
  let resumed = 0;
  const said: string[] = [];
  return {
    offsets,
    said,
    resumed: () => resumed,
    steps: {
      follow(offset: number): Follow {
        offsets.push(offset);
        const s = steps.shift()!;
        return {
          child: new EventEmitter() as unknown as ChildProcess,
          done: Promise.resolve({ ended: s.ended, offset: offset + s.bytes, problem: s.ended ? null : 'dropped' }),
        };
      },
      state: async (): Promise<RemoteState> => ({
        running: false,
        exit: 0,
        hasSession: true,
        stderrTail: [],
        ...states.shift(),
      }),
      resume: async () => void resumed++,
      stopper: { requested: false },
      say: (t: string) => void said.push(t),
      retryDelaysMs: [0, 0],
    },
  };
}

describe('a server command’s API key, taken out for the environment there', () => {
  it('takes --api-key K, --api-key=K and env’s VLLM_API_KEY=K out, and leaves the rest word for word', () => {
    expect(keyOutOfCommand(['speedmatrix', 'sim', 'serve', '--api-key', 'sk-1', '--port', '8001'])).toEqual({
      argv: ['speedmatrix', 'sim', 'serve', '--port', '8001'],
      apiKey: 'sk-1',
    });
    expect(keyOutOfCommand(['vllm', 'serve', 'm', '--api-key=sk-2'])).toEqual({
      argv: ['vllm', 'serve', 'm'],
      apiKey: 'sk-2',
    });
    expect(keyOutOfCommand(['env', 'CUDA_VISIBLE_DEVICES=0', 'VLLM_API_KEY=sk-3', 'vllm', 'serve', 'm'])).toEqual({
      argv: ['env', 'CUDA_VISIBLE_DEVICES=0', 'vllm', 'serve', 'm'],
      apiKey: 'sk-3',
    });
    // Only env's own assignments: the same words as the program's arguments are its own.
    expect(keyOutOfCommand(['my-server', 'VLLM_API_KEY=x'])).toEqual({ argv: ['my-server', 'VLLM_API_KEY=x'] });
  });

  it('a simulator started there with the key in its environment probes with it and does not repeat it on its command line', () => {
    const o = launchOptionsFromCommand(['speedmatrix', 'sim', 'serve', '--port', '8001'], { VLLM_API_KEY: 'sk-env' });
    expect(o.apiKey).toBe('sk-env');
    expect(buildLaunch(o).argv.join(' ')).not.toContain('sk-env');
    const typed = launchOptionsFromCommand(['speedmatrix', 'sim', 'serve', '--api-key', 'sk-typed'], {});
    expect(buildLaunch(typed).argv).toContain('sk-typed');
  });

  it('has a docker run pass the key on into the container (-e VLLM_API_KEY), once', () => {
    expect(keyOutOfCommand(['docker', 'run', '--rm', 'vllm/vllm-openai', 'm', '--api-key', 'k']).argv).toEqual([
      ...['docker', 'run', '-e', 'VLLM_API_KEY', '--rm', 'vllm/vllm-openai', 'm'],
    ]);
    const built = ['env', 'VLLM_API_KEY=k', 'docker', 'run', '-e', 'VLLM_API_KEY', 'img', 'serve', 'm'];
    expect(keyOutOfCommand(built).argv).toEqual(['env', 'docker', 'run', '-e', 'VLLM_API_KEY', 'img', 'serve', 'm']);
  });
});

describe('following a remote run', () => {
  it('follows again from the byte where a dropped link stopped, and ends with the run’s exit code', async () => {
    const r = scripted(
      [
        { bytes: 100, ended: false },
        { bytes: 0, ended: false },
        { bytes: 50, ended: true },
      ],
      [{ exit: 0 }],
    );
    expect(await followUntilEnded(r.steps, 'h')).toEqual({ exit: 0, stderrTail: [] });
    expect(r.offsets).toEqual([0, 100, 100]);
    expect(r.said.filter((t) => /Connection to h lost \(dropped\)/.test(t))).toHaveLength(2);
  });

  it('resumes a run that died there without finishing, but not one the person stopped', async () => {
    const died = scripted(
      [
        { bytes: 10, ended: true },
        { bytes: 10, ended: true },
      ],
      [{ exit: null }, { exit: 0 }],
    );
    expect((await followUntilEnded(died.steps, 'h')).exit).toBe(0);
    expect(died.resumed()).toBe(1);
    expect(died.offsets).toEqual([0, 10]);

    const stopped = scripted([{ bytes: 10, ended: true }], [{ exit: 137 }]);
    stopped.steps.stopper.requested = true;
    expect((await followUntilEnded(stopped.steps, 'h')).exit).toBe(137);
    expect(stopped.resumed()).toBe(0);
  });

  it('gives up after its tries when nothing comes through, saying the run carries on there', async () => {
    const r = scripted(
      [
        { bytes: 0, ended: false },
        { bytes: 0, ended: false },
        { bytes: 0, ended: false },
      ],
      [],
    );
    await expect(followUntilEnded(r.steps, 'h')).rejects.toThrow(
      /lost the connection to h \(dropped\); the run carries on there/,
    );
    expect(r.offsets).toEqual([0, 0, 0]);
  });

  it('tells of each drop with the wait before the next try, and Reattach (the waker) cuts a long wait short', async () => {
    const r = scripted(
      [
        { bytes: 10, ended: false },
        { bytes: 0, ended: false },
        { bytes: 5, ended: true },
      ],
      [{ exit: 0 }],
    );
    const waker = new Waker();
    const drops: string[] = [];
    const ended = followUntilEnded(
      {
        ...r.steps,
        retryDelaysMs: [600_000, 600_000],
        waker,
        dropped: (problem, s) => {
          drops.push(`${problem} ${s}`);
          // Once while waiting, once while the next try is in flight: neither click is lost.
          if (drops.length === 1) setTimeout(() => waker.wake(), 0);
          else waker.wake();
        },
      },
      'h',
    );
    expect(await ended).toEqual({ exit: 0, stderrTail: [] });
    expect(drops).toEqual(['dropped 600', 'dropped 600']);
    expect(r.offsets).toEqual([0, 10, 10]);
  });
});
