/**
 * A second Ctrl-C quits at once, and still takes the server the run launched with it: a
 * simulated vLLM (or a real one holding the GPU's memory) is never left running; one Ctrl-C of
 * a load run saves what was measured and stops its server. The real CLI, the real simulator as
 * its own process group, found by the launched-server registry.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { LaunchedRegistry } from '../../../src-main/engine/server/launched-registry';
import { findGroupProcesses, killGroupNow } from '../../../src-main/engine/server/orphans';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { ROOT } from '../../helpers/paths';

const SMALL = ['--contexts', '0', '--concurrency', '1,2,4', '--prefill-contexts', 'none', '--duration', '40'];

async function groupGone(pgid: number, withinMs: number): Promise<boolean> {
  for (const end = Date.now() + withinMs; Date.now() < end; await new Promise((r) => setTimeout(r, 100)))
    if ((await findGroupProcesses(pgid)).length === 0) return true;
  return false;
}

/** The real CLI with its own data folder (where the launched-server registry lives), its output piped. */
const cliChild = (data: string, args: string[]) =>
  spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
    env: { ...process.env, SPEEDMATRIX_DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/**
 * `run --demo`, Ctrl-C once the first cell is done, and Ctrl-C again as soon as the run has
 * said how to continue: while the CLI is stopping the simulator.
 */
function twiceInterrupted(data: string, out: string) {
  const child = cliChild(data, ['run', '--demo', ...SMALL, '--sim-speed', '20', '--json-progress', '--out', out]);
  let stdout = '';
  let stderr = '';
  const launched: number[] = [];
  let signals = 0;
  const interrupt = () => {
    signals++;
    child.kill('SIGINT');
  };
  child.stdout.on('data', (d) => {
    stdout += d;
    if (signals === 0 && /"type":"cell-done"/.test(stdout)) {
      launched.push(...new LaunchedRegistry(data).list().map((e) => e.pgid));
      interrupt();
    }
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    if (signals === 1 && /^Continue later with: /m.test(stderr)) interrupt();
  });
  return new Promise<{ code: number | null; stderr: string; launched: number[] }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr, launched })),
  );
}

describe('a second Ctrl-C', () => {
  it('during run --demo ends the simulator the run launched, says so with its pid, and exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-ctrl-c-'));
    const data = join(dir, 'data');
    const launched: number[] = [];
    onTestFinished(() => {
      for (const pgid of launched) killGroupNow(pgid);
      rmSync(dir, { recursive: true, force: true });
    });
    const r = await twiceInterrupted(data, join(dir, 'demo.speedmatrix.json'));
    launched.push(...r.launched);
    expect(launched).toHaveLength(1);
    expect(r.code, r.stderr).toBe(130);
    expect(await groupGone(launched[0], 3000)).toBe(true);
    expect(r.stderr).toContain(`Stopping now; ended the server this run launched (pid ${launched[0]}) at once.`);
  }, 180_000);
});

/** `load --demo` with two long passes, Ctrl-C once the first has started. */
function loadInterrupted(data: string, out: string) {
  const child = cliChild(data, [
    'load',
    '--demo',
    '--rates',
    '2,4',
    '--duration',
    '60',
    '--sim-speed',
    '10',
    '--json-progress',
    '--out',
    out,
  ]);
  let stdout = '';
  let stderr = '';
  const launched: number[] = [];
  child.stdout.on('data', (d) => {
    stdout += d;
    if (launched.length === 0 && /"type":"tick"|"type":"pass-start"/.test(stdout)) {
      launched.push(...new LaunchedRegistry(data).list().map((e) => e.pgid));
      setTimeout(() => child.kill('SIGINT'), 1500);
    }
  });
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stderr: string; launched: number[] }>((resolve) =>
    child.on('close', (code) => resolve({ code, stderr, launched })),
  );
}

describe('one Ctrl-C of a load run', () => {
  it('saves the session with what was measured, stops the simulator it launched, and exits 130', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-load-ctrl-c-'));
    const data = join(dir, 'data');
    const out = join(dir, 'load.speedmatrix.json');
    const launched: number[] = [];
    onTestFinished(() => {
      for (const pgid of launched) killGroupNow(pgid);
      rmSync(dir, { recursive: true, force: true });
    });
    const r = await loadInterrupted(data, out);
    launched.push(...r.launched);
    expect(launched).toHaveLength(1);
    expect(r.code, r.stderr).toBe(130);
    expect(r.stderr).toContain('Stopping: saving the rates measured so far (Ctrl-C again to quit at once)...');
    expect(r.stderr).toContain('Cancelled; saved what was measured');
    expect(await groupGone(launched[0], 3000)).toBe(true);
    expect(existsSync(out)).toBe(true);
    const saved = await readSessionFile(out);
    expect(saved.ok && saved.data.load?.config.rates).toEqual([2, 4]);
  }, 180_000);
});
