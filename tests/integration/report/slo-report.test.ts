/**
 * "Capacity within targets" in the reports, through the real CLI on real files.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers/index';
import { writeSessionFile } from '../../../src-main/platform/session/write';
import { ROOT, SYNTHETIC_REPORT } from '../../helpers/paths';

const BIN = join(ROOT, 'src-main/hosts/cli/bin.cjs');

function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { timeout: 60_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
    });
  });
}

let dir: string;
let file: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sm-slo-'));
  file = join(dir, 'ref.speedmatrix.json');
  const ref = await importFile(SYNTHETIC_REPORT);
  if (!ref.ok) throw new Error(ref.error);
  const saved = await writeSessionFile(file, ref.data);
  if (!saved.ok) throw new Error(saved.error);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('speedmatrix report --slo', () => {
  it('adds the capacity table to the Markdown report, saying the targets used medians', async () => {
    const out = join(dir, 'slo.md');
    // 8K: 4 at once (120 ms, 95.2 tok/s) is the most; 16 misses both. 32K: 150 ms alone is already too slow.
    const r = await cli(['report', file, '--slo', 'ttft-p90<=140ms,per-request>=80', '--out', out]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const md = readFileSync(out, 'utf8');
    expect(md).toContain('## Capacity within targets');
    expect(md).toContain('Targets: TTFT p90 ≤ 140 ms; Per request tok/s ≥ 80.0 tok/s.');
    expect(md).toContain('| 8K | 4 | 380.0 | 95.2 |');
    expect(md).toContain('| 32K | none | — | — |');
    expect(md).toMatch(/medians only .* checked against the median/);
  });

  it('adds the same table to the HTML report', async () => {
    const out = join(dir, 'slo.html');
    const r = await cli(['report', file, '--format', 'html', '--slo', 'tbt<=10ms', '--out', out]);
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('<h2>Capacity within targets</h2>');
    // Time between tokens ≤ 10 ms: at 8K, 1 at once (9.9 ms) is the most (4 take 10.5 ms); at 32K none (11.1 ms).
    expect(html).toMatch(/<td>8K<\/td><td>1<\/td><td>100\.0<\/td>/);
    expect(html).toMatch(/<td>32K<\/td><td>none<\/td>/);
  });

  it('refuses a malformed target with the reason and exit code 2, writing nothing', async () => {
    const out = join(dir, 'bad.md');
    const r = await cli(['report', file, '--slo', 'ttft-p90<=2', '--out', out]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--slo: "ttft-p90<=2": give the time with its unit, ms or s');
    expect(() => readFileSync(out)).toThrow();
  });
});
