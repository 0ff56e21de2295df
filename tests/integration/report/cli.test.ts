/**
 * The report, import and compare commands as a person runs them: the real CLI in a child
 * process, real files, real Chromium for the PDF.
 */
import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers/index';
import { writeSessionFile } from '../../../src-main/platform/session/write';
import { runCli } from '../../helpers/cli';
import { ARTIFACTS, ROOT, SYNTHETIC_REPORT } from '../../helpers/paths';

const BIN = join(ROOT, 'src-main/hosts/cli/bin.cjs');
const SEED = join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json');

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, ...args],
      { env: { ...process.env, ...env }, timeout: 150_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

function run(cmd: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { timeout: 60_000 }, (err, stdout) => (err ? reject(err) : resolve(stdout)));
  });
}

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sm-cli-report-'));
  copyFileSync(SYNTHETIC_REPORT, join(dir, 'synthetic.txt'));
  copyFileSync(SEED, join(dir, 'benchmark_results.json'));
  // The session the report and compare tests start from (the import tests make their own).
  const ref = await importFile(SYNTHETIC_REPORT);
  if (!ref.ok) throw new Error(ref.error);
  const saved = await writeSessionFile(join(dir, 'ref.speedmatrix.json'), ref.data);
  if (!saved.ok) throw new Error(saved.error);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('speedmatrix import', () => {
  it('imports report text next to the input and prints a summary', async () => {
    const r = await cli(['import', join(dir, 'synthetic.txt')]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain(`Imported synthetic.txt into ${join(dir, 'synthetic.speedmatrix.json')}`);
    expect(r.stdout).toContain('Cells:     6 (Valid 4, Looped 1, Over capacity 1)');
    const saved = JSON.parse(readFileSync(join(dir, 'synthetic.speedmatrix.json'), 'utf8'));
    expect(saved.origin.kind).toBe('imported-report-text');
  });

  it('imports seed JSON to --out, and will not replace a file without --force (exit 2, as run and report)', async () => {
    const out = join(dir, 'seed.speedmatrix.json');
    expect((await cli(['import', join(dir, 'benchmark_results.json'), '--out', out])).code).toBe(0);
    const again = await cli(['import', join(dir, 'benchmark_results.json'), '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain('already exists; choose another --out or add --force');
    expect((await cli(['import', join(dir, 'benchmark_results.json'), '--out', out, '--force'])).code).toBe(0);
  });

  it('refuses what it cannot import, exit 1 with what was expected', async () => {
    const r = await cli(['import', join(ROOT, 'package.json')]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^speedmatrix import: package\.json is JSON but not llm-inference-bench results/);
    expect(r.stderr).toContain('"All measurements"');
    expect((await cli(['import'])).code).toBe(2);
  });
});

describe('speedmatrix report', () => {
  it('writes Markdown and HTML next to the session by default', async () => {
    const md = await cli(['report', join(dir, 'ref.speedmatrix.json')]);
    expect(md.code).toBe(0);
    expect(md.stdout).toBe(`Wrote the Markdown report to ${join(dir, 'ref.md')}\n`);
    expect(readFileSync(join(dir, 'ref.md'), 'utf8')).toContain('# Example-2B on Example GPU 48GB');
    const html = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--format', 'html']);
    expect(html.code).toBe(0);
    expect(readFileSync(join(dir, 'ref.html'), 'utf8')).toContain('<svg ');
  });

  it('reports straight from another tool’s results', async () => {
    const r = await cli(['report', join(dir, 'benchmark_results.json'), '--out', join(dir, 'seed.md')]);
    expect(r.code).toBe(0);
    expect(readFileSync(join(dir, 'seed.md'), 'utf8')).toContain(
      '| Sustained decode | 8K | 128 | Valid | 4,786.2 | 37.1 | 862 ms | 26.9 ms | 128.0 | 0 | 143,488 | 30.0 s |',
    );
  });

  it('fails cleanly: bad format (2), unreadable input (1), an output folder that is a file or missing (2, nothing left behind)', async () => {
    const fmt = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--format', 'docx']);
    expect(fmt.code).toBe(2);
    expect(fmt.stderr).toContain("argument 'docx' is invalid. Allowed choices are md, html, pdf, csv, jsonl.");

    const broken = join(dir, 'broken.speedmatrix.json');
    const text = readFileSync(join(dir, 'ref.speedmatrix.json'), 'utf8');
    writeFileSync(broken, text.slice(0, text.length / 2));
    const b = await cli(['report', broken]);
    expect(b.code).toBe(1);
    expect(b.stderr).toMatch(/broken\.speedmatrix\.json is not valid JSON .*truncated/);

    // A file where a folder should be: unwritable for every user, root included.
    const before = readdirSync(dir).sort();
    const w = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--out', join(dir, 'synthetic.txt', 'r.md')]);
    expect(w.code).toBe(2);
    expect(w.stderr).toBe(`speedmatrix report: --out: ${join(dir, 'synthetic.txt')} is not a folder.\n`);
    expect(readdirSync(dir).sort()).toEqual(before);
    const missing = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--out', join(dir, 'no/such/dir/r.md')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(
      `speedmatrix report: --out: the folder ${join(dir, 'no/such/dir')} does not exist; create it or choose another place.\n`,
    );
  });

  it('refuses an --out extension no format has (exit 2, naming the formats) and writes nothing', async () => {
    const before = readdirSync(dir).sort();
    const r = await cli(['report', join(dir, 'ref.speedmatrix.json'), '-o', join(dir, 'x.docx')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `speedmatrix report: --out ${join(dir, 'x.docx')}: .docx is no report format; end it in .md, .html, .pdf, .csv, .jsonl, or give --format\n`,
    );
    expect(readdirSync(dir).sort()).toEqual(before);
    const named = await cli(['report', join(dir, 'ref.speedmatrix.json'), '-f', 'md', '-o', join(dir, 'notes.txt')]);
    expect(named.code).toBe(0);
    expect(readFileSync(join(dir, 'notes.txt'), 'utf8')).toContain('# Example-2B on Example GPU 48GB');
  });

  it('-o - writes the report to standard output, and no file named -', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'sm-cli-stdout-'));
    try {
      const md = await runCli(['report', join(dir, 'ref.speedmatrix.json'), '-o', '-'], { cwd });
      expect(md.code).toBe(0);
      expect(md.stderr).toBe('');
      expect(md.stdout).toContain('# Example-2B on Example GPU 48GB');
      expect(md.stdout).not.toContain('Wrote the');
      const csv = await runCli(['report', join(dir, 'ref.speedmatrix.json'), '-o', '-', '-f', 'csv'], { cwd });
      expect(csv.code).toBe(0);
      expect(csv.stdout).toMatch(/^context,concurrency,status,/);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('will not replace a report without --force, and reads report text as import does', async () => {
    const out = join(dir, 'from-text.md');
    const first = await cli(['report', join(dir, 'synthetic.txt'), '--out', out]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    expect(readFileSync(out, 'utf8')).toContain('| 8K | 20.0K |');
    writeFileSync(out, 'kept');
    const again = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--out', out]);
    expect(again.code).toBe(2);
    expect(again.stderr).toBe(
      `speedmatrix report: ${out} already exists; choose another --out or add --force to replace it.\n`,
    );
    expect(readFileSync(out, 'utf8')).toBe('kept');
    expect((await cli(['report', join(dir, 'ref.speedmatrix.json'), '--out', out, '--force'])).code).toBe(0);
    expect(readFileSync(out, 'utf8')).not.toBe('kept');
  });

  it('says which given flags it does not use: --gpu-price without the cost metric, --paper for Markdown', async () => {
    const out = join(dir, 'unused-flags.md');
    const r = await cli([
      'report',
      join(dir, 'ref.speedmatrix.json'),
      '--gpu-price',
      '2.5',
      '--paper',
      'letter',
      '--out',
      out,
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe(
      'speedmatrix report: --gpu-price is used only with --metric cost-per-million; ignored.\n' +
        'speedmatrix report: --paper is for PDF reports; ignored for Markdown.\n',
    );
    const quiet = await cli([
      'report',
      join(dir, 'ref.speedmatrix.json'),
      '--format',
      'html',
      '--out',
      join(dir, 'q.html'),
    ]);
    expect(quiet.stderr).toBe('');
  });

  it('says how to get Chromium when there is none', async () => {
    const r = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--format', 'pdf'], {
      SPEEDMATRIX_CHROMIUM: join(dir, 'no-chromium'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('SPEEDMATRIX_CHROMIUM is set to');
    expect(r.stderr).toContain('sudo apt-get install chromium');
    expect(existsSync(join(dir, 'ref.pdf'))).toBe(false);
  });

  it('prints a PDF with headless Chromium whose text holds the title, model and table values', async () => {
    const pdf = join(dir, 'ref.pdf');
    const r = await cli(['report', join(dir, 'ref.speedmatrix.json'), '--format', 'pdf', '--out', pdf]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    const text = await run('pdftotext', ['-layout', pdf, '-']);
    expect(text).toContain('Example-2B on Example GPU 48GB');
    expect(text).toContain('example-org/Example-2B');
    expect(text).toContain('All measurements');
    expect(text).toMatch(
      /Sustained decode\s+8K\s+16\s+Valid\s+1,200\.0\s+75\.1\s+450 ms\s+13\.3 ms\s+16\.0\s+0\s+36,000\s+30\.0 s/,
    );
    expect(text).toMatch(/Prefill\s+32K\s+1\s+Valid\s+15\.0K/);
    const info = await run('pdfinfo', [pdf]);
    expect(info).toMatch(/Page size:\s+595\.\d+ x 84[12]\.\d+ pts \(A4\)/);
    // Page 1 as a picture for a person to look at.
    mkdirSync(ARTIFACTS, { recursive: true });
    await run('pdftoppm', [
      '-png',
      '-r',
      '60',
      '-f',
      '1',
      '-l',
      '1',
      '-singlefile',
      pdf,
      join(ARTIFACTS, 'report-reference-page1'),
    ]);
    expect(statSync(join(ARTIFACTS, 'report-reference-page1.png')).size).toBeGreaterThan(20_000);
  });

  it('prints on Letter paper too', async () => {
    const pdf = join(dir, 'ref-letter.pdf');
    const r = await cli([
      'report',
      join(dir, 'ref.speedmatrix.json'),
      '--format',
      'pdf',
      '--paper',
      'letter',
      '--out',
      pdf,
    ]);
    expect(r.code).toBe(0);
    expect(await run('pdfinfo', [pdf])).toMatch(/Page size:\s+612 x 792 pts \(letter\)/);
    // Tables fit the narrower page: the last column's values are on the page.
    expect(await run('pdftotext', ['-layout', pdf, '-'])).toMatch(/36,000\s+30\.0 s/);
  });
});

describe('speedmatrix compare', () => {
  it('says the regression gate’s verdict on stderr, so the comparison printed (or redirected) holds the comparison only', async () => {
    const a = join(dir, 'ref.speedmatrix.json');
    const plain = await cli(['compare', a, a]);
    const gated = await cli(['compare', a, a, '--max-regression', '5%']);
    expect(gated.code).toBe(0);
    expect(gated.stdout).toBe(plain.stdout);
    expect(gated.stderr).toBe('Regression gate: no cell slower by more than 5% beyond the noise.\n');
  });

  it('prints Markdown to the terminal and writes HTML with --out', async () => {
    const a = join(dir, 'ref.speedmatrix.json');
    const b = join(dir, 'benchmark_results.json');
    const md = await cli(['compare', a, b]);
    expect(md.code).toBe(0);
    expect(md.stdout).toContain('## Sustained decode: B / A');
    const out = join(dir, 'cmp.html');
    const html = await cli(['compare', a, b, '--format', 'html', '--out', out]);
    expect(html.code).toBe(0);
    expect(html.stdout).toBe(`Wrote the comparison to ${out}\n`);
    expect(readFileSync(out, 'utf8')).toContain('<h2>Sustained decode: B / A</h2>');
  });

  it('needs two files (exit 2) and readable ones (exit 1)', async () => {
    const one = await cli(['compare', join(dir, 'ref.speedmatrix.json')]);
    expect(one.code).toBe(2);
    expect(one.stderr).toContain('give at least two files to compare');
    const bad = await cli(['compare', join(dir, 'ref.speedmatrix.json'), join(dir, 'nope.json')]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('nope.json');
  });
});
