/**
 * Hostile and broken session files: every case of the generated corpus is refused
 * with a clear one-line message naming the file, or opens and renders into Markdown and HTML
 * with no markup from the file. The same for imports, and for a 200 MB file.
 */
import { closeSync, ftruncateSync, mkdtempSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { importFile, importText } from '../../../src-main/workflows/importers';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { renderMarkdownReport } from '../../../src-main/workflows/report/markdown';
import { parseSessionText, readSessionFile } from '../../../src-main/platform/session/read';
import {
  HOSTILE_STRINGS,
  baseSession,
  fuzzCorpus,
  hostileSession,
  hostileStringCount,
} from '../../helpers/fuzz-corpus';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-fuzz-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Raw markup that would become an element or a live URL if a string slipped through unescaped. */
const RAW_MARKUP = [
  /<script>window/i,
  /<img src=x/i,
  /<svg onload/i,
  /<iframe/i,
  /<a href="javascript:/i,
  /<b>bold/i,
  /\]\(javascript:/i,
  /<[^>]+=\s*"?javascript:/i,
];

/** Element names in an HTML document, so a hostile session's report can be compared with a clean one's. */
const tagNames = (html: string) => new Set([...html.matchAll(/<([a-zA-Z][\w-]*)/g)].map((m) => m[1].toLowerCase()));

function expectClearError(message: string, name: string): void {
  expect(message.startsWith(name), message).toBe(true);
  expect(message).not.toMatch(/\n|\bat \S+:\d+|undefined|\[object Object\]/);
  expect(message.length).toBeLessThan(600);
}

describe('fuzz corpus of session files', () => {
  const corpus = fuzzCorpus();

  it('is large and reaches every string field the schema accepts', () => {
    expect(corpus.length).toBeGreaterThan(500);
    expect(hostileStringCount(hostileSession())).toBeGreaterThan(40);
  });

  it('each case is refused with a clear message, or opens and renders with no markup from the file', () => {
    // The elements a report of the untouched base session has: a case may add none of its own.
    const clean = tagNames(renderHtmlReport(baseSession()));
    let opened = 0;
    let refused = 0;
    for (const c of corpus) {
      const name = 'fuzz.speedmatrix.json';
      const r = parseSessionText(typeof c.data === 'string' ? c.data : new Uint8Array(c.data), name);
      if (!r.ok) {
        refused++;
        expectClearError(r.error.message, name);
        continue;
      }
      expect(c.expect, `${c.name} should have been refused`).toBe('any');
      opened++;
      const md = renderMarkdownReport(r.data);
      const html = renderHtmlReport(r.data);
      for (const re of RAW_MARKUP) {
        expect(re.test(html), `${c.name}: ${re} in HTML`).toBe(false);
        expect(re.test(md), `${c.name}: ${re} in Markdown`).toBe(false);
      }
      for (const tag of tagNames(html)) expect(clean.has(tag), `${c.name}: <${tag}> in HTML`).toBe(true);
    }
    expect(opened).toBeGreaterThan(10);
    expect(refused).toBeGreaterThan(500);
  });

  it('names the field and what was expected for a wrong type, and says a truncated file looks truncated', () => {
    const wrong = corpus.find((c) => c.name === 'wrong type at engine.version')!;
    const r = parseSessionText(wrong.data as string, 'w.json');
    expect(!r.ok && r.error.message).toMatch(/field engine\.version: expected string, got number/);
    const nan = corpus.find((c) => c.name.startsWith('"NaN" at cells.0.totalTokensPerSecond'))!;
    const n = parseSessionText(nan.data as string, 'n.json');
    expect(!n.ok && n.error.message).toMatch(/field cells\[0\]\.totalTokensPerSecond: expected number, got string/);
    for (const c of corpus.filter((x) => x.name.startsWith('truncated'))) {
      const t = parseSessionText(c.data as string, 't.json');
      expect(!t.ok && t.error.message).toMatch(/t\.json is not valid JSON .*looks truncated/);
    }
    const utf = corpus.filter((c) => c.name.startsWith('invalid UTF-8'));
    expect(utf.length).toBe(4);
    for (const c of utf)
      expect(parseSessionText(c.data as Uint8Array, 'u.json')).toMatchObject({
        ok: false,
        error: { message: 'u.json is not valid UTF-8 text, so it is not a session file.' },
      });
  });

  it('the hostile session renders every payload as escaped text in both report formats', () => {
    const s = hostileSession();
    const html = renderHtmlReport(s);
    expect(html).toContain('&lt;script&gt;window.__pwned=&quot;script&quot;&lt;/script&gt;');
    expect(html).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="[^"]*script-src 'none'|default-src 'none'/,
    );
    const md = renderMarkdownReport(s);
    expect(md).toMatch(/&lt;script&gt;|\\<script\\>|`[^`]*<script>/);
  });

  it('imports: every corpus case given to Import gets a clear answer and never throws', () => {
    for (const c of corpus) {
      const r = importText(typeof c.data === 'string' ? c.data : new Uint8Array(c.data), 'x.json');
      if (!r.ok) expectClearError(r.error, 'x.json');
    }
  });

  it("another tool's report text carrying markup imports as plain strings and renders escaped", () => {
    // A report's text as its web page gives it (the format of tests/fixtures/reports/), markup in its fields.
    const report = [
      'Speed test matrix',
      `${HOSTILE_STRINGS[0]} on ${HOSTILE_STRINGS[1]}`,
      'Launch command',
      `vllm serve org/model ${HOSTILE_STRINGS[3]} --port 8000`,
      'All measurements',
      'Latencies are medians.| Phase | Context | Requests at once | Status | Total tok/s | Per request tok/s | TTFT | Time between tokens | Average active requests | Completed requests | Output tokens | Measured for |',
      '|---|---|---|---|---|---|---|---|---|---|---|---|',
      '| Sustained decode | 8K | 1 | Valid | 120.0 | 121.0 | 40 ms | 8.0 ms | 1.0 | 1 | 3,600 | 30.0 s |',
    ].join('\n');
    const t = importText(report, 'r.txt');
    if (!t.ok) throw new Error(t.error);
    expect(t.data.server.display).toContain(HOSTILE_STRINGS[3]);
    const html = renderHtmlReport(t.data);
    const md = renderMarkdownReport(t.data);
    // The launch command is a fenced code block in Markdown, where markup is shown as text.
    const fenced = /^(`{3,})text\n[\s\S]*?\n\1$/gm;
    expect(md.match(fenced)?.join('\n')).toContain(HOSTILE_STRINGS[3]);
    const prose = md.replace(fenced, '');
    for (const re of RAW_MARKUP) {
      expect(re.test(html), `${re} in HTML`).toBe(false);
      expect(re.test(prose), `${re} in Markdown`).toBe(false);
    }
    expect(html).toContain('&lt;b&gt;bold&lt;/b&gt;');
  });
});

describe('a 200 MB file', () => {
  const big = join(dir, 'huge.speedmatrix.json');
  it('is refused before it is read, by Open and by Import, naming its size', async () => {
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 200 * 1024 * 1024); // sparse: no 200 MB written to the disk
    closeSync(fd);
    const r = await readSessionFile(big);
    expect(!r.ok && r.error.message).toBe(
      'huge.speedmatrix.json is 200.0 MB; SpeedMatrix opens session files up to 64 MB. It is probably not a session file.',
    );
    const i = await importFile(big);
    expect(!i.ok && i.error).toMatch(/^Cannot import huge\.speedmatrix\.json: it is 200\.0 MB/);
  });

  it('dropped onto the window (text in memory) is refused with the same size message, and the app keeps going', async () => {
    const core = createAppCore({
      host: 'bridge',
      dataDir: dir,
      allowWritePaths: false,
      detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    });
    const text = `{"format":"speedmatrix-session","pad":"${'x'.repeat(200 * 1024 * 1024)}"}`;
    const r = await core.invoke('session:open-data', [{ name: 'dropped.json', text }]);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^dropped\.json is 200\.0 MB; SpeedMatrix opens session files up to 64 MB/);
    const info = await core.invoke('app:info', []);
    expect(info.ok).toBe(true);
    await core.dispose();
  }, 60_000);
});

// A file written by hand on disk goes through the same checks as text in memory.
describe('the corpus through real files', () => {
  it('a sample of cases read from disk give the same answer as from memory', async () => {
    for (const c of fuzzCorpus().filter((_, i) => i % 40 === 0)) {
      const f = join(dir, 'case.speedmatrix.json');
      writeFileSync(f, c.data);
      const disk = await readSessionFile(f);
      const mem = parseSessionText(typeof c.data === 'string' ? c.data : new Uint8Array(c.data), f);
      expect(disk.ok).toBe(mem.ok);
      if (!disk.ok && !mem.ok) expect(disk.error.message).toBe(mem.error.message);
    }
  });
});
