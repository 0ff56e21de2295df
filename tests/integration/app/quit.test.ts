/**
 * Quitting the app from outside: the line `quit` on its stdin, which `npm start` writes on
 * Windows (where a signal to a child is TerminateProcess), quits as File > Quit does, asking
 * about unsaved results first. Booted from the built main against the Electron stand-in.
 */
import { expect } from 'vitest';
import { standinTest as it } from '../../helpers/fixtures';

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
