/**
 * Quitting the app: the line `quit` on its stdin, which `npm start` writes on Windows (where a
 * signal to a child is TerminateProcess), quits as File > Quit does; a server whose stop hangs
 * gets a time limit, then a question, not a frozen app. Booted from the built main against the
 * Electron stand-in.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { standinTest as it } from '../../helpers/fixtures';
import { ROOT } from '../../helpers/paths';
import { freePort } from '../../../src-main/engine/server/port';

/** Ends what is still running of a fake server on `port` (its leader and its engine child). */
function endFakeServer(port: number): void {
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      if (cmd.includes('fake-vllm.cjs') && cmd.includes(`\0${port}\0`)) process.kill(Number(name), 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
}

it('the line quit on stdin quits as File > Quit does (before-quit, will-quit), and the app exits 0', async ({
  bootMain,
}) => {
  const m = bootMain({ stdin: true, env: { SPEEDMATRIX_QUIT_ON_STDIN: '1' } });
  await m.waitFor((s) => s.windows.length > 0, 'the window');
  m.writeStdin('hello\n');
  await new Promise((r) => setTimeout(r, 300));
  expect((await m.state()).appEvents).not.toContain('before-quit');
  m.writeStdin('quit\n');
  const { code, record } = await m.exited;
  expect(code).toBe(0);
  expect(record!.appEvents).toEqual(expect.arrayContaining(['before-quit', 'will-quit', 'quit']));
}, 60_000);

it('without SPEEDMATRIX_QUIT_ON_STDIN the app does not read its stdin', async ({ bootMain }) => {
  const m = bootMain({ stdin: true });
  await m.waitFor((s) => s.windows.length > 0, 'the window');
  m.writeStdin('quit\n');
  await new Promise((r) => setTimeout(r, 500));
  expect((await m.state()).appEvents).not.toContain('before-quit');
}, 60_000);

it('quitting while the server ignores its stop: after the time limit a question, and Quit Now ends the app', async ({
  bootMain,
}) => {
  const port = await freePort();
  try {
    const m = bootMain();
    await m.waitFor((s) => s.windows.length > 0, 'the window');
    const fake = join(ROOT, 'tests/helpers/fake-servers/fake-vllm.cjs');
    const form = {
      kind: 'custom',
      model: 'm',
      customCommand: [
        process.execPath,
        fake,
        'serve',
        'm',
        '--port',
        String(port),
        '--fake-scenario',
        'ignore-sigterm',
      ].join('\n'),
      port,
    };
    const start = m.call<{ ok: boolean }>('invoke', { channel: 'server:start', args: [form] });
    await m.waitFor((s) => s.messageBoxes.some((b) => b.answer === null), 'the command’s confirmation');
    await m.call('answer', { kind: 'message', answer: { response: 0 } });
    expect(await start).toMatchObject({ ok: true });
    const state = async () =>
      (await m.call<{ data: { state: string } }>('invoke', { channel: 'server:snapshot' })).data.state;
    for (let i = 0; i < 300 && (await state()) === 'starting'; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await state()).toBe('ready');
    const asked = Date.now();
    await m.call('appQuit');
    const s = await m.waitFor(
      (x) => x.messageBoxes.some((b) => b.answer === null && /still stopping/.test(String(b.options.message))),
      'the question',
      25_000,
    );
    expect(Date.now() - asked).toBeGreaterThanOrEqual(9_000);
    expect(s.messageBoxes.at(-1)!.options.buttons).toEqual(['Wait', 'Quit Now']);
    expect(s.exitCode).toBeNull();
    await m.call('answer', { kind: 'message', answer: { response: 1 } });
    const { code } = await m.exited;
    expect(code).toBe(0);
  } finally {
    endFakeServer(port);
  }
}, 90_000);
