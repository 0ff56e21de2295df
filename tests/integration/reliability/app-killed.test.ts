/**
 * The app killed with SIGKILL mid-run: its core runs in a process of its own, is
 * killed after two finished cells, and a new core's Resume (run:resume on the run's file)
 * restores every finished cell from the journal and measures only the rest.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { recoverFromJournal } from '../../../src-main/platform/session/journal';
import { alive } from '../../helpers/fake-servers';
import { ROOT } from '../../helpers/paths';
import { simTest } from '../../helpers/fixtures';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-appkill-'));
const it = simTest.override('simOptions', { scope: 'file' }, { speed: 20, args: ['--served-model-name', 'fara'] });
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}

/** Live child processes of `pid`, from the process table. */
function childrenOf(pid: number): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid;
      } catch {
        return false;
      }
    })
    .map(Number);
}

const key = (c: { context: number; concurrency: number }) => `${c.context}x${c.concurrency}`;

describe('the app killed with SIGKILL mid-run', () => {
  it('Resume restores every finished cell from the journal and measures only the rest', async ({ sim }) => {
    const tsx = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
    const child = spawn(
      process.execPath,
      ['--import', tsx, join(__dirname, 'fixtures/core-run-child.ts'), dir, sim.url],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    let buf = '';
    const workers: number[] = [];
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString();
      // Each update carries the cells finished since the one before.
      const finished = buf
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .reduce((n, l) => n + (JSON.parse(l) as { cells: number }).cells, 0);
      if (finished >= 2 && !child.killed) {
        workers.push(...childrenOf(child.pid!).filter((p) => cmdline(p).includes('worker-main')));
        child.kill('SIGKILL');
      }
    });
    const signal = await new Promise<string | null>((res) => child.on('close', (_c, s) => res(s)));
    expect(signal, stderr).toBe('SIGKILL');
    // The benchmark worker it had started notices its parent is gone and leaves.
    expect(workers.length).toBe(1);
    for (let i = 0; i < 100 && workers.some(alive); i++) await new Promise((r) => setTimeout(r, 100));
    expect(workers.filter(alive)).toEqual([]);

    const runsDir = join(dir, 'runs');
    const journals = readdirSync(runsDir).filter((f) => f.endsWith('.journal'));
    expect(journals.length).toBe(1);
    const file = join(runsDir, journals[0].replace(/\.journal$/, ''));
    const recovered = recoverFromJournal(`${file}.journal`)!;
    const before = new Map(recovered.cells.filter((c) => c.status === 'valid').map((c) => [key(c), c.startedAt]));
    expect(before.size).toBeGreaterThanOrEqual(2);

    const core = createAppCore({
      host: 'bridge',
      dataDir: dir,
      detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    });
    try {
      const d = await core.invoke('server:defaults', []);
      if (!d.ok) throw new Error(d.error);
      expect((await core.invoke('server:start', [{ ...d.data, kind: 'attach', url: sim.url, model: '' }])).ok).toBe(
        true,
      );
      for (let i = 0; i < 300; i++) {
        const snap = await core.invoke('server:snapshot', []);
        if (snap.ok && snap.data.state === 'ready') break;
        await new Promise((r) => setTimeout(r, 100));
      }
      let phase = '';
      core.on('run:update', (u) => (phase = u.phase));
      const resumed = await core.invoke('run:resume', [file]);
      expect(resumed.ok, resumed.ok ? '' : resumed.error).toBe(true);
      for (let i = 0; i < 1200 && phase !== 'done'; i++) await new Promise((r) => setTimeout(r, 100));
      expect(phase).toBe('done');
      const s = await core.invoke('session:get', []);
      const cells = s.ok && s.data.session ? s.data.session.cells : [];
      expect(cells.map(key).sort()).toEqual(['0x1', '0x2', '0x4', '0x8'].sort());
      expect(cells.every((c) => c.status === 'valid' || c.status === 'queued')).toBe(true);
      // Cells finished before the kill were not measured again.
      for (const [k, at] of before) expect(cells.find((c) => key(c) === k)?.startedAt).toBe(at);
    } finally {
      await core.dispose();
    }
  }, 180_000);
});
