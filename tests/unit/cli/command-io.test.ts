/** What the long-running CLI commands share: Ctrl-C once saves, twice quits; which exit code an error gives. */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitCodeFor, onStopSignals } from '../../../src-main/hosts/cli/commands/command-io';
import { EXIT } from '../../../src-main/hosts/cli/commands/exit';
import { Refusal } from '../../../src-main/hosts/cli/commands/out-folder';
import { exitCodeOfRemote } from '../../../src-main/hosts/cli/commands/remote-drive';

afterEach(() => vi.restoreAllMocks());

describe('Ctrl-C in a long-running command', () => {
  it('the first stops and saves, a second says why it leaves and exits at once with 130', () => {
    // As the real exit, control never comes back.
    const exit = vi.spyOn(process, 'exit').mockImplementation(((code: number) => {
      throw new Error(`exit ${code}`);
    }) as never);
    const calls: string[] = [];
    const signals = onStopSignals(
      () => calls.push('stop'),
      () => calls.push('leave'),
    );
    try {
      expect(signals.interrupted).toBe(false);
      process.emit('SIGINT');
      expect(signals.interrupted).toBe(true);
      expect(calls).toEqual(['stop']);
      expect(exit).not.toHaveBeenCalled();
      expect(() => process.emit('SIGTERM')).toThrow('exit 130');
      expect(calls).toEqual(['stop', 'leave']);
      expect(exit).toHaveBeenCalledWith(EXIT.cancelled);
    } finally {
      signals.off();
    }
  });

  it('listens no more once the command ended', () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    const signals = onStopSignals(() => {});
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before.map((n) => n + 1));
    signals.off();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });
});

describe('the exit code of an error', () => {
  it('a refusal carries its own code; anything else gets the command’s; the message is said either way', () => {
    const said: string[] = [];
    const err = (m: string) => said.push(m);
    expect(exitCodeFor(new Refusal('--out: exists', EXIT.usage), err, EXIT.failed)).toBe(EXIT.usage);
    expect(exitCodeFor(new Error('the server went away'), err, EXIT.failed)).toBe(EXIT.failed);
    expect(said).toEqual(['--out: exists', 'the server went away']);
  });

  it('a job on a host: done is 0, stopped is 130, anything else (or no code) is a failure here', () => {
    expect([0, 130, 1, 2, null].map(exitCodeOfRemote)).toEqual([
      EXIT.ok,
      EXIT.cancelled,
      EXIT.failed,
      EXIT.failed,
      EXIT.failed,
    ]);
  });
});
