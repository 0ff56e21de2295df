/**
 * Figure 6, session files: the 60-cell, 100,000-sample session saved (atomic write) and opened
 * (read, parse, schema check) through the real session module.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { writeSessionFile } from '../../../src-main/platform/session/write';
import { bigSession } from '../lib/big-session';
import { BENCH } from '../lib/config';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

export async function sessionFileFigure(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-bench-'));
  try {
    const session = bigSession();
    const file = join(dir, 'big.speedmatrix.json');
    const save: number[] = [];
    const open: number[] = [];
    for (let i = 0; i < Math.max(3, BENCH.repeats); i++) {
      let t0 = performance.now();
      const w = await writeSessionFile(file, session);
      save.push(performance.now() - t0);
      if (!w.ok) throw new Error(w.error);
      t0 = performance.now();
      const r = await readSessionFile(file);
      open.push(performance.now() - t0);
      if (!r.ok) throw new Error(r.error.message);
      if (r.data.cells.reduce((a, c) => a + (c.requests?.sentAt.length ?? 0), 0) !== 100_000)
        throw new Error('the session lost samples on the way');
    }
    const f = '6 Session file';
    return [
      row(f, '60 cells, 100,000 request samples: file size', spread([statSync(file).size / 1e6]), 'MB', 2, {
        text: '< 20 MB',
        ok: (v) => v < 20,
      }),
      row(f, 'save (serialize, schema check, atomic write)', spread(save), 'ms', 0),
      row(f, 'open (read, parse, schema check)', spread(open), 'ms', 0),
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
