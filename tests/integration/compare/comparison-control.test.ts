/**
 * Opening comparisons in the core: a sweep folder written by the real CLI sweep on the
 * simulator, its sweep.json, bad folders and files, sessions compared as files, and exports
 * that are the CLI's own reports. Also the app's session export with the metric, targets and
 * GPU price the person chose.
 */
import { copyFileSync, cpSync, mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ComparisonControl } from '../../../src-main/hosts/app-core/comparison-control';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { renderCompareHtml, renderCompareMarkdown } from '../../../src-main/workflows/report/compare';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { buildSweepModel } from '#shared/report/sweep-model';
import { parseTargets } from '#shared/report/slo';
import type { Session } from '#shared/session/schema';
import { SWEEP_FILES, makeSweepFolder } from './real-sweep';
import { runCli } from '../../helpers/cli';
import { ROOT, SYNTHETIC_REPORT } from '../../helpers/paths';

let root: string;
let sweepDir: string;
let few: Session;
let many: Session;

const total = (s: Session, concurrency: number) =>
  s.cells.find((c) => c.context === 8192 && c.concurrency === concurrency)!;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'sm-compare-'));
  ({ dir: sweepDir, few, many } = await makeSweepFolder(root));
}, 300_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A copy of the sweep folder to break. */
function copyOfSweep(name: string): string {
  const dir = join(root, name);
  cpSync(sweepDir, dir, { recursive: true });
  return dir;
}

describe('a sweep folder opened as a comparison', () => {
  it('lists every variant, the failed ones with their root cause, and picks the best per cell as the sweep report does', async () => {
    const v = await new ComparisonControl(null).openSweep(sweepDir);
    expect(v.source).toBe('sweep');
    expect(v.title).toBe('Sweep of 4 launch variants');
    expect(v.entries.map((e) => [e.label, e.state])).toEqual([
      ['A', 'failed'],
      ['B', 'failed'],
      ['C', 'done'],
      ['D', 'done'],
    ]);
    expect(v.entries[0].name).toBe('--max-model-len=99999999 --max-num-seqs=4');
    expect(v.entries[0].problem).toMatch(/max_model_len/);
    expect(v.entries[0].file).toBeNull();
    expect(v.entries[3].file).toBe(join(sweepDir, SWEEP_FILES.manySeqs));
    expect(v.sweep.variants.rows[1][3]).toMatch(/^Did not start: .*max_model_len/);

    // The same model as the report built from the files themselves.
    const expected = buildSweepModel([
      {
        variant: { settings: [], label: '--max-model-len=99999999 --max-num-seqs=4' },
        file: '',
        session: null,
        failure: 'x',
      },
      {
        variant: { settings: [], label: '--max-model-len=99999999 --max-num-seqs=16' },
        file: '',
        session: null,
        failure: 'x',
      },
      { variant: { settings: [], label: '' }, file: SWEEP_FILES.fewSeqs, session: few, failure: null },
      { variant: { settings: [], label: '' }, file: SWEEP_FILES.manySeqs, session: many, failure: null },
    ]);
    expect(v.sweep.best).toEqual(expected.best);
    expect(v.sweep.wins).toEqual(expected.wins);
    // Four sequences at once cannot hold sixteen requests: D wins 8K × 16 with its Valid figure.
    expect(total(few, 16).status, total(few, 16).reason ?? '').toBe('queued');
    if (total(many, 16).status === 'valid')
      expect(v.sweep.best.rows[0][1]).toMatchObject({
        entry: 3,
        totalTokensPerSecond: total(many, 16).totalTokensPerSecond,
      });

    // The variants that ran keep their letters in the comparison, D over C.
    expect(v.comparison?.labels).toEqual(['C', 'D']);
    const ratio = v.comparison!.decode[0];
    expect(ratio.label).toBe('D / C');
    expect(ratio.rows[0][0].ratio).toBeCloseTo(
      total(many, 1).totalTokensPerSecond! / total(few, 1).totalTokensPerSecond!,
      10,
    );
    // C's queued cell still has its figure: D is about 3× C there, with C's status beside it.
    const at16 = total(many, 16).totalTokensPerSecond! / total(few, 16).totalTokensPerSecond!;
    expect(at16).toBeGreaterThan(2);
    // (A loaded machine may leave D's cells, or C's at 1 request, queued too: their statuses show then.)
    expect(ratio.rows[0][1]).toMatchObject({ ratio: at16, verdict: 'faster' });
    expect(ratio.rows[0][1].note).toMatch(/^C(: | and D: )Requests queued/);
    expect(ratio.contextVerdicts[0]).toContain(
      `At 8K context, D is ${ratio.rows[0][1].figure} faster at 16 requests (${ratio.rows[0][1].note})`,
    );
    // sweep.md says it at the top and beside the ratio.
    const md = readFileSync(join(sweepDir, 'sweep.md'), 'utf8');
    expect(md.indexOf(ratio.contextVerdicts[0])).toBeGreaterThan(0);
    expect(md.indexOf(ratio.contextVerdicts[0])).toBeLessThan(md.indexOf('## Variants'));
    expect(md).toContain(`| 8K | ${ratio.rows[0][0].text} | ${ratio.rows[0][1].text} |`);
    expect(ratio.rows[0][1].text).toMatch(/^\d\.\d\d× · C(: | and D: )Requests queued$/);
    expect(v.comparison!.prefill.map((p) => p.context)).toEqual([8192]);
  });

  it('holds no path of this machine: the sessions record the command as given, not the process that ran it', async () => {
    const v = await new ComparisonControl(null).openSweep(sweepDir);
    const texts = [
      ...[SWEEP_FILES.fewSeqs, SWEEP_FILES.manySeqs, 'sweep.json', 'sweep.md', 'sweep.html'].map((f) =>
        readFileSync(join(sweepDir, f), 'utf8'),
      ),
      JSON.stringify(v.comparison),
      JSON.stringify(v.sweep),
    ];
    for (const text of texts) {
      for (const local of [ROOT, process.execPath, tmpdir(), 'file://', '--import']) expect(text).not.toContain(local);
    }
    expect(many.server.argv.slice(0, 3)).toEqual(['speedmatrix', 'sim', 'serve']);
  });

  it('exports exactly the sweep.md and sweep.html the CLI wrote', async () => {
    const c = new ComparisonControl(null);
    await c.openSweep(join(sweepDir, 'sweep.json'));
    const md = join(root, 'out.md');
    expect(await c.export('markdown', md)).toEqual({ file: md });
    expect(readFileSync(md, 'utf8')).toBe(readFileSync(join(sweepDir, 'sweep.md'), 'utf8'));
    const html = await c.export('html', join(root, 'out'));
    expect(html.file).toBe(join(root, 'out.html'));
    expect(readFileSync(html.file, 'utf8')).toBe(readFileSync(join(sweepDir, 'sweep.html'), 'utf8'));
  });

  it('refuses a folder without sweep.json and without two results files, saying so', async () => {
    const empty = mkdtempSync(join(root, 'not-a-sweep-'));
    const c = new ComparisonControl(null);
    await c.openSweep(sweepDir);
    await expect(c.openSweep(empty)).rejects.toThrow(
      `${empty} is not a sweep folder: it has no sweep.json, and no file in it opens as results (a comparison needs two).`,
    );
    // The earlier comparison is gone with the failed open, as the page shows: nothing stale is exported.
    expect(c.view()).toBeNull();
    await expect(c.export('markdown', join(root, 'stale.md'))).rejects.toThrow(/no comparison to export/);
    const broken = copyOfSweep('broken-index');
    writeFileSync(join(broken, 'sweep.json'), '{"format": "speedmatrix-sweep", "formatVersion": 1');
    await expect(new ComparisonControl(null).openSweep(broken)).rejects.toThrow(/sweep\.json is not valid JSON/);
  });

  it('says in place which variant file is missing or corrupt, and compares nothing when fewer than two remain', async () => {
    const dir = copyOfSweep('damaged');
    unlinkSync(join(dir, SWEEP_FILES.fewSeqs));
    writeFileSync(join(dir, SWEEP_FILES.manySeqs), readFileSync(join(dir, SWEEP_FILES.manySeqs), 'utf8').slice(0, 500));
    const v = await new ComparisonControl(null).openSweep(dir);
    expect(v.entries.map((e) => e.state)).toEqual(['failed', 'failed', 'unusable', 'unusable']);
    expect(v.entries[2].problem).toBe(`${SWEEP_FILES.fewSeqs} is missing from the sweep folder.`);
    expect(v.entries[3].problem).toMatch(new RegExp(`${SWEEP_FILES.manySeqs}.*(JSON|truncated)`));
    expect(v.sweep.variants.rows[3][3]).toMatch(/^Session file unusable: /);
    expect(v.comparison).toBeNull();
  });

  it('takes every file Open takes: a file of a sweep opens its sweep; a folder of results without sweep.json compares them', async () => {
    const c = new ComparisonControl(null);
    // A variant's session file, or the sweep.json, stands for the sweep folder.
    for (const file of [join(sweepDir, SWEEP_FILES.manySeqs), join(sweepDir, 'sweep.json')]) {
      const v = await c.openSweep(file);
      expect([v.source, v.dir, v.entries.length]).toEqual(['sweep', sweepDir, 4]);
    }
    // Another tool's report text and a session, with a file that is no results at all.
    const folder = mkdtempSync(join(root, 'results-'));
    copyFileSync(SYNTHETIC_REPORT, join(folder, 'a-reference.txt'));
    copyFileSync(join(sweepDir, SWEEP_FILES.manySeqs), join(folder, 'b-ours.speedmatrix.json'));
    writeFileSync(join(folder, 'notes.md'), '# What we tried\n\nNothing measured here.\n');
    const v = await c.openSweep(folder);
    expect(v.source).toBe('sessions');
    expect(v.entries.map((e) => [e.label, e.name, e.file])).toEqual([
      ['A', 'a-reference.txt', join(folder, 'a-reference.txt')],
      ['B', 'b-ours.speedmatrix.json', join(folder, 'b-ours.speedmatrix.json')],
    ]);
    expect(v.comparison?.decode[0].label).toBe('B / A');
    // The same comparison as the files compared by name, as `speedmatrix compare` does.
    const direct = await new ComparisonControl(null).openSessions([
      join(folder, 'a-reference.txt'),
      join(folder, 'b-ours.speedmatrix.json'),
    ]);
    expect(v.comparison).toEqual(direct.comparison);
    // One results file alone, outside a sweep, is no comparison: Open and Compare are said.
    unlinkSync(join(folder, 'b-ours.speedmatrix.json'));
    await expect(c.openSweep(folder)).rejects.toThrow(
      /has no sweep\.json, and only one file in it opens as results \(a comparison needs two\)\. Not results: notes\.md: /,
    );
    await expect(c.openSweep(join(folder, 'a-reference.txt'))).rejects.toThrow(
      'a-reference.txt is one results file, and its folder holds no sweep.json: open it with Open…, or compare it with others with Compare Sessions….',
    );
  });

  it('asks for the folder with the dialog, and a closed dialog is a cancel', async () => {
    const folders: (string | null)[] = [sweepDir, null];
    const dialogs = {
      chooseOpenPath: async () => null,
      chooseSavePath: async () => null,
      chooseFolder: async () => folders.shift() ?? null,
    };
    const c = new ComparisonControl(dialogs);
    expect((await c.openSweep()).dir).toBe(sweepDir);
    await expect(c.openSweep()).rejects.toThrow('Cancelled.');
    await expect(new ComparisonControl(null).openSweep()).rejects.toThrow(/There is no file dialog here/);
  });
});

describe('the regression gate of `speedmatrix compare`', () => {
  it('exits 3 naming the cells when B has fewer max sequences, 0 for the same server, and prints JSON', async () => {
    const fewFile = join(sweepDir, SWEEP_FILES.fewSeqs);
    const manyFile = join(sweepDir, SWEEP_FILES.manySeqs);
    const slower = await runCli(['compare', manyFile, fewFile, '--max-regression', '5%']);
    expect(slower.code).toBe(3);
    expect(slower.stderr).toMatch(/^Regression gate: 1 cell slower by more than 5% beyond the noise:\n/);
    expect(slower.stderr).toMatch(/B \/ A at 8K context × 16: 0\.\d\d× \(\d+% slower; (A and )?B: Requests queued\)/);
    expect(slower.stdout).toContain('## Verdict');
    const same = await runCli(['compare', fewFile, fewFile, '--max-regression', '5%']);
    expect(same.code).toBe(0);
    expect(same.stderr).toBe('Regression gate: no cell slower by more than 5% beyond the noise.\n');
    const json = await runCli(['compare', manyFile, fewFile, '--json', '--max-regression', '5']);
    expect(json.code).toBe(3);
    const parsed = JSON.parse(json.stdout) as { labels: string[]; regressions: { concurrency: number }[] };
    expect(parsed.labels).toEqual(['A', 'B']);
    expect(parsed.regressions.map((r) => r.concurrency)).toEqual([16]);
    const usage = await runCli(['compare', manyFile, fewFile, '--max-regression', 'fast']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--max-regression takes a percentage/);
  });
});

describe('sessions compared as files', () => {
  it('compares two session files, the first the baseline, and exports what `speedmatrix compare` prints', async () => {
    const a = join(root, 'a.speedmatrix.json');
    const b = join(root, 'b.speedmatrix.json');
    copyFileSync(join(sweepDir, SWEEP_FILES.fewSeqs), a);
    copyFileSync(join(sweepDir, SWEEP_FILES.manySeqs), b);
    const c = new ComparisonControl(null);
    const v = await c.openSessions([a, b]);
    expect(v.source).toBe('sessions');
    expect(v.entries.map((e) => [e.label, e.name, e.file])).toEqual([
      ['A', 'a.speedmatrix.json', a],
      ['B', 'b.speedmatrix.json', b],
    ]);
    expect(v.comparison?.decode[0].label).toBe('B / A');
    const md = await c.export('markdown', join(root, 'cmp.md'));
    expect(readFileSync(md.file, 'utf8')).toBe(renderCompareMarkdown([few, many]));
    const html = await c.export('html', join(root, 'cmp.html'));
    expect(readFileSync(html.file, 'utf8')).toBe(renderCompareHtml([few, many]));
  });

  it("the app's export carries the GPU price given in Results into the overlay's per-price lines", async () => {
    const core = createAppCore({ host: 'bridge', dataDir: join(root, 'app-price') });
    try {
      const files = [join(sweepDir, SWEEP_FILES.fewSeqs), join(sweepDir, SWEEP_FILES.manySeqs)];
      expect((await core.invoke('compare:open-sessions', [files])).ok).toBe(true);
      const out = join(root, 'priced.md');
      const view = { metric: 'total' as const, slo: '', gpuPricePerHour: 2.5, gpuPriceCurrency: 'EUR' };
      expect(await core.invoke('compare:export', ['markdown', out, view])).toEqual({ ok: true, data: { file: out } });
      const priced = readFileSync(out, 'utf8');
      expect(priced).toBe(renderCompareMarkdown([few, many], { gpuPrice: { perHour: 2.5, currency: 'EUR' } }));
      expect(priced).not.toBe(renderCompareMarkdown([few, many]));
      expect(priced).toContain('EUR');
    } finally {
      await core.dispose();
    }
  });

  it('takes every file Open takes: a report’s text compares with a session', async () => {
    const v = await new ComparisonControl(null).openSessions([SYNTHETIC_REPORT, join(sweepDir, SWEEP_FILES.manySeqs)]);
    expect(v.entries.map((e) => e.name)).toEqual(['synthetic-matrix.txt', SWEEP_FILES.manySeqs]);
    expect(v.comparison?.decode[0].label).toBe('B / A');
    const cli = await runCli(['compare', SYNTHETIC_REPORT, join(sweepDir, SWEEP_FILES.manySeqs)]);
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain('## Sustained decode: B / A');
  });

  it('refuses one file, and names the file that cannot be read', async () => {
    const c = new ComparisonControl(null);
    await expect(c.openSessions([join(sweepDir, SWEEP_FILES.fewSeqs)])).rejects.toThrow(/two or more/);
    const bad = join(root, 'bad.speedmatrix.json');
    writeFileSync(bad, '{"format": "speedmatrix-session", "formatVersion": 1}');
    await expect(c.openSessions([join(sweepDir, SWEEP_FILES.fewSeqs), bad])).rejects.toThrow(
      /^bad\.speedmatrix\.json cannot be compared: /,
    );
    await expect(c.export('markdown', join(root, 'x.md'))).rejects.toThrow(/no comparison to export/);
  });
});

describe("the app's report export", () => {
  it('writes the metric, the capacity within targets and the GPU price the person chose', async () => {
    const core = createAppCore({ host: 'bridge', dataDir: join(root, 'app') });
    try {
      const file = join(sweepDir, SWEEP_FILES.manySeqs);
      expect((await core.invoke('session:open', [file])).ok).toBe(true);
      const out = join(root, 'chosen.md');
      const r = await core.invoke('report:export', ['markdown', out, { metric: 'ttft', slo: 'ttft-p90<=2s' }]);
      expect(r).toEqual({ ok: true, data: { file: out } });
      const text = readFileSync(out, 'utf8');
      expect(text).toBe(renderMarkdownReport(many, { metric: 'ttft', targets: parseTargets('ttft-p90<=2s') }));
      expect(text).toContain('Capacity within targets');
      expect(text).toMatch(/TTFT \(median\) · /);

      const cost = await core.invoke('report:export', [
        'markdown',
        join(root, 'cost.md'),
        { metric: 'cost-per-million', gpuPricePerHour: 3.6 },
      ]);
      expect(cost.ok).toBe(true);
      expect(readFileSync(join(root, 'cost.md'), 'utf8')).toBe(
        renderMarkdownReport(many, { metric: 'cost-per-million', gpuPricePerHour: 3.6 }),
      );

      const bad = await core.invoke('report:export', ['markdown', join(root, 'bad.md'), { slo: 'ttft<=fast' }]);
      expect(bad).toMatchObject({ ok: false, error: expect.stringMatching(/^Targets: /) });
      // Without a choice the export is the plain report, as before.
      await core.invoke('report:export', ['markdown', join(root, 'plain.md')]);
      expect(readFileSync(join(root, 'plain.md'), 'utf8')).toBe(renderMarkdownReport(many));
    } finally {
      await core.dispose();
    }
  });
});
