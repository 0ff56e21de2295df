/**
 * The CLI killed with SIGKILL mid-run: the journal restores every completed cell and
 * `--resume` finishes the matrix without measuring any cell twice. The run uses a recognisable
 * API key, and every output (stdout, stderr, session file, journal, Markdown, HTML and the
 * event log inside the session) is searched for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect } from 'vitest';
import { cellKey } from '#shared/cell-key';
import { journalPathFor, recoverFromJournal } from '../../../src-main/platform/session/journal';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { ROOT } from '../../helpers/paths';
import { simTest } from '../../helpers/fixtures';

const KEY = 'sk-RELIABILITY-c0ffee-4242';
const CELLS = ['0x1', '0x2', '0x4', '0x8'];
const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-killed-'));
const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  { speed: 20, apiKey: KEY, args: ['--served-model-name', 'fara'] },
);
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

interface Ev {
  type: string;
  context?: number;
  concurrency?: number;
  cell?: { context: number; concurrency: number; status: string };
}
const events = (out: string): Ev[] =>
  out
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Ev);
const startedKeys = (evs: Ev[]) =>
  evs.filter((e) => e.type === 'cell-start').map((e) => cellKey(e as { context: number; concurrency: number }));
const doneKeys = (evs: Ev[]) => evs.flatMap((e) => (e.type === 'cell-done' && e.cell ? [cellKey(e.cell)] : []));

describe('speedmatrix run killed with SIGKILL', () => {
  it('the journal keeps every finished cell; --resume measures only the rest; the key is in no output', async ({
    sim,
  }) => {
    const out = join(dir, 'killed.speedmatrix.json');
    const args = [
      'run',
      '--url',
      sim.url,
      '--contexts',
      '0',
      '--concurrency',
      '1,2,4,8',
      '--prefill-contexts',
      'none',
      '--duration',
      '3',
      '--sim-speed',
      '20',
      '--json-progress',
      '--out',
      out,
    ];
    const env = { ...process.env, SPEEDMATRIX_API_KEY: KEY };
    const child = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let killed = false;
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      // Kill in the third cell, after two have finished: no chance to save or clean up.
      if (!killed && doneKeys(events(stdout)).length >= 2 && startedKeys(events(stdout)).length >= 3) {
        killed = true;
        child.kill('SIGKILL');
      }
    });
    const [code, signal] = await new Promise<[number | null, string | null]>((res) =>
      child.on('close', (c, s) => res([c, s])),
    );
    expect(signal).toBe('SIGKILL');
    const firstDone = doneKeys(events(stdout));
    expect(firstDone.length).toBeGreaterThanOrEqual(2);
    expect(code).toBeNull();

    // What survives the kill: the journal beside the session file, with every finished cell.
    const journal = journalPathFor(out);
    expect(existsSync(journal)).toBe(true);
    const journalText = readFileSync(journal, 'utf8');
    const recovered = recoverFromJournal(journal);
    expect(recovered).not.toBeNull();
    const recoveredDone = recovered!.cells
      .filter((c) => c.status === 'valid')
      .map((c) => `${c.context}x${c.concurrency}`);
    expect(recoveredDone.sort()).toEqual([...firstDone].sort());

    const again = await runCli(['run', '--resume', out, '--sim-speed', '20', '--json-progress'], {
      cwd: dir,
      env: { SPEEDMATRIX_API_KEY: KEY },
      timeoutMs: 120_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).not.toMatch(/error|warn/i);
    const secondStarted = startedKeys(events(again.stdout));
    expect(secondStarted.filter((k) => firstDone.includes(k))).toEqual([]);
    expect([...firstDone, ...doneKeys(events(again.stdout))].sort()).toEqual([...CELLS].sort());
    const s = await readSessionFile(out);
    expect(s.ok && s.data.cells.map((c) => `${c.context}x${c.concurrency}:${c.status}`).sort()).toEqual(
      CELLS.map((k) => `${k}:valid`).sort(),
    );
    expect(existsSync(journal)).toBe(false);

    // Reports from the finished session, then every output searched for the key.
    const md = await runCli(['report', out, '--format', 'md', '--out', join(dir, 'killed.md')], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    const html = await runCli(['report', out, '--format', 'html', '--out', join(dir, 'killed.html')], {
      cwd: dir,
      timeoutMs: 60_000,
    });
    expect([md.code, html.code]).toEqual([0, 0]);
    expect(s.ok && s.data.events.length).toBeGreaterThan(0);
    const outputs: [string, string][] = [
      ['first stdout', stdout],
      ['first stderr', stderr],
      ['journal', journalText],
      ['resume stdout', again.stdout],
      ['report stdout', md.stdout + md.stderr + html.stdout + html.stderr],
      ...readdirSync(dir).map((f): [string, string] => [f, readFileSync(join(dir, f), 'latin1')]),
    ];
    expect(outputs.length).toBeGreaterThanOrEqual(8);
    for (const [name, text] of outputs) expect(text.includes(KEY), `the key is in ${name}`).toBe(false);
  }, 180_000);
});
