/**
 * Building the results site again on the same folder: only changed runs are redone, pages of
 * runs that are gone are removed, files the site did not write stay, and a file that cannot be
 * read is listed with its error while the rest is built. Real files, the real builder.
 */
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect } from 'vitest';
import { openSessionOrImport } from '../../../src-main/workflows/importers/open';
import { buildSite, runIdOf } from '../../../src-main/workflows/site/build';
import { serializeSession } from '../../../src-main/platform/session/write';
import { runCli } from '../../helpers/cli';
import { tempTest as it } from '../../helpers/fixtures';
import { sampleSession } from '../../helpers/sample-session';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { ROOT } from '../../helpers/paths';

function writeRun(dir: string, name: string, gpu = 'H200'): string {
  const s = sampleSession();
  s.hardware.gpus[0].name = gpu;
  const file = join(dir, name);
  writeFileSync(file, serializeSession(s));
  return file;
}

async function build(dirs: string[], out: string) {
  const r = await buildSite(dirs, out, openSessionOrImport);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

describe('the results site rebuilt on the same folder', () => {
  it('redoes changed runs only, removes the pages of runs that are gone and keeps files it did not write', async ({
    tempDir,
  }) => {
    const root = tempDir('sm-site-');
    const runs = join(root, 'runs');
    mkdirSync(runs);
    const a = writeRun(runs, 'a.speedmatrix.json');
    const b = writeRun(runs, 'b.speedmatrix.json');
    const out = join(root, 'site');
    const first = await build([runs], out);
    expect([first.written, first.kept, first.removed]).toEqual([2, 0, 0]);
    const pageA = join(out, 'runs', runIdOf(a), 'index.html');
    const pageB = join(out, 'runs', runIdOf(b), 'index.html');
    const mine = join(out, 'runs', runIdOf(b), 'notes-of-mine.txt');
    writeFileSync(join(out, 'README-of-mine.txt'), 'kept');
    writeFileSync(mine, 'kept too');
    const writtenAt = statSync(pageA).mtimeMs;

    writeRun(runs, 'b.speedmatrix.json', 'B200');
    utimesSync(b, new Date(), new Date(Date.now() + 5000));
    const second = await build([runs], out);
    expect([second.written, second.kept, second.removed]).toEqual([1, 1, 0]);
    expect(statSync(pageA).mtimeMs).toBe(writtenAt);
    expect(readFileSync(pageB, 'utf8')).toContain('B200');

    writeFileSync(b, '{"format": "speedmatrix-session", "formatVersion": 1}');
    utimesSync(b, new Date(), new Date(Date.now() + 10_000));
    const third = await build([runs], out);
    const broken = third.runs.find((r) => r.id === runIdOf(b))!;
    expect(broken.error).toMatch(/b\.speedmatrix\.json is not a valid session/);
    expect(existsSync(pageB)).toBe(false);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toContain('is not a valid session');
    expect(existsSync(pageA)).toBe(true);

    const fourth = await build([join(runs, 'a.speedmatrix.json')], out);
    expect([fourth.runs.length, fourth.removed]).toEqual([1, 1]);
    expect(readFileSync(join(out, 'README-of-mine.txt'), 'utf8')).toBe('kept');
    expect(readFileSync(mine, 'utf8')).toBe('kept too');
  });

  it('lists a session once, not again through its own Markdown report beside it; a report alone is still imported', async ({
    tempDir,
  }) => {
    const root = tempDir('sm-site-');
    const runs = join(root, 'runs');
    mkdirSync(runs);
    writeRun(runs, 'a.speedmatrix.json');
    writeFileSync(join(runs, 'a.md'), renderMarkdownReport(sampleSession()));
    writeFileSync(join(runs, 'other.md'), renderMarkdownReport(sampleSession()));
    const site = await build([runs], join(root, 'site'));
    expect(site.runs.map((r) => basename(r.source)).sort()).toEqual(['a.speedmatrix.json', 'other.md']);
  });

  it('shows a load session’s figures in the index, not a dash in every column', async ({ tempDir }) => {
    const root = tempDir('sm-site-');
    const runs = join(root, 'runs');
    mkdirSync(runs);
    const peer = 'guidellm-benchmarks.json';
    writeFileSync(join(runs, peer), readFileSync(join(ROOT, 'tests/fixtures/peers', peer)));
    const [row] = (await build([runs], join(root, 'site'))).runs;
    const opened = await openSessionOrImport(join(runs, peer));
    if (!opened.ok) throw new Error(opened.error);
    const best = Math.max(...opened.data.load!.results.map((r) => r.outputTokensPerSecond));
    expect(row.bestTotal).toBe(best);
    expect(row.bestAt).toMatch(/req\/s|throughput|synchronous/);
    expect(row.decodeSingle).not.toBeNull();
    expect(row.tool).toBe('GuideLLM');
    expect(row.createdAt).toBe('2025-12-01T14:40:00.000Z');
  });

  it('refuses a folder that holds other files and is not a site, and writes nothing there', async ({ tempDir }) => {
    const root = tempDir('sm-site-');
    writeRun(root, 'a.speedmatrix.json');
    const out = join(root, 'elsewhere');
    mkdirSync(out);
    writeFileSync(join(out, 'index.html'), 'someone else’s page');
    const r = await buildSite([root], out, openSessionOrImport);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/already holds other files and is not a SpeedMatrix site/);
    expect(readFileSync(join(out, 'index.html'), 'utf8')).toBe('someone else’s page');
  });

  it('passes over files that are not results, and lists named results that cannot be read', async ({ tempDir }) => {
    const root = tempDir('sm-site-');
    writeRun(root, 'a.speedmatrix.json');
    writeFileSync(join(root, 'notes.txt'), 'a shopping list');
    writeFileSync(join(root, 'package.json'), '{"name": "x"}');
    writeFileSync(join(root, 'benchmark_results.json'), '{"results": [');
    const built = await build([root], join(root, 'site'));
    expect(built.passedOver).toBe(2);
    expect(built.runs.map((r) => [r.source, r.error === null])).toEqual([
      [join(basename(root), 'a.speedmatrix.json'), true],
      [join(basename(root), 'benchmark_results.json'), false],
    ]);
    expect(built.runs[1].error).toMatch(/not valid JSON.*truncated/);
  });

  it('the command: no site folder is a usage error; a folder that is not there is named, exit 2, nothing made', async ({
    tempDir,
  }) => {
    const root = tempDir('sm-site-');
    const usage = await runCli(['site', root]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("required option '-o, --out <dir>' not specified");
    const missing = join(root, 'nope');
    const other = join(root, 'nor-this');
    const site = join(root, 'site');
    const r = await runCli(['site', missing, other, '-o', site]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(
      `speedmatrix site: ${missing}: no such file or folder\nspeedmatrix site: ${other}: no such file or folder\n`,
    );
    expect(r.stdout).toBe('');
    expect(existsSync(site)).toBe(false);
  });

  it('a mistyped folder on a site built before removes and writes nothing there', async ({ tempDir }) => {
    const root = tempDir('sm-site-');
    const runs = join(root, 'runs');
    mkdirSync(runs);
    const a = writeRun(runs, 'a.speedmatrix.json');
    const site = join(root, 'site');
    expect((await runCli(['site', runs, '-o', site])).code).toBe(0);
    const page = join(site, 'runs', runIdOf(a), 'index.html');
    const before = readdirSync(site, { recursive: true }).map(String).sort();
    const index = readFileSync(join(site, 'index.html'), 'utf8');

    const r = await runCli(['site', join(root, 'rnus'), '-o', site]);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe(`speedmatrix site: ${join(root, 'rnus')}: no such file or folder\n`);
    expect(r.stdout).toBe('');
    expect(existsSync(page)).toBe(true);
    expect(readdirSync(site, { recursive: true }).map(String).sort()).toEqual(before);
    expect(readFileSync(join(site, 'index.html'), 'utf8')).toBe(index);
  });

  it('a site folder it cannot write in: "--out: cannot write in", exit 2, as every other command says it', async ({
    tempDir,
  }) => {
    const root = tempDir('sm-site-');
    writeRun(root, 'a.speedmatrix.json');
    const locked = join(root, 'locked');
    mkdirSync(locked);
    chmodSync(locked, 0o555);
    chmodSync(root, 0o755);
    // root writes anywhere whatever the mode: the CLI then runs as nobody.
    const wrap = process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : [];
    const r = await runCli(['site', root, '-o', join(locked, 'site')], { wrap, env: { HOME: root } });
    expect(r.stderr).toBe(
      `speedmatrix site: --out: cannot write in ${locked}: permission denied; choose another place.\n`,
    );
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });
});
