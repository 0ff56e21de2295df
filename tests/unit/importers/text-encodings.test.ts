/**
 * Files written on Windows: UTF-16 with a byte order mark (Windows PowerShell's `>` and
 * Out-File, Notepad's "Unicode") and UTF-8 with one open everywhere a file is read (sessions,
 * imports, simulator profiles), and file types are recognised whatever the case of the name.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers';
import { openSessionOrImport } from '../../../src-main/workflows/importers/open';
import { decodeText, hasExtension } from '../../../src-main/platform/runtime/text';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { serializeSession } from '../../../src-main/platform/session/write';
import { loadProfile } from '../../../src-main/engine/sim/profile';
import { sampleSession } from '../../helpers/sample-session';

const dir = mkdtempSync(join(tmpdir(), 'sm-enc-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The bytes each Windows tool writes for `text`. */
const ENCODINGS: Record<string, (text: string) => Buffer> = {
  'UTF-16LE with BOM (PowerShell 5 Out-File, Notepad "Unicode")': (t) =>
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(t, 'utf16le')]),
  'UTF-16BE with BOM (Notepad "Unicode big endian")': (t) =>
    Buffer.concat([Buffer.from([0xfe, 0xff]), Buffer.from(t, 'utf16le').swap16()]),
  'UTF-8 with BOM (Notepad "UTF-8 with BOM", PowerShell -Encoding utf8)': (t) =>
    Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(t, 'utf8')]),
};
const write = (name: string, bytes: Buffer): string => {
  const f = join(dir, name);
  writeFileSync(f, bytes);
  return f;
};

describe('text encodings of files from Windows', () => {
  const session = sampleSession();
  const seed = readFileSync(join(__dirname, 'fixtures/fara-benchmark_results.json'), 'utf8');
  const profile = JSON.stringify({
    ...JSON.parse(readFileSync(join(__dirname, '../../../src-main/engine/sim/profiles/firehose.json'), 'utf8')),
    name: 'from-windows',
  });
  let n = 0;
  for (const [label, encode] of Object.entries(ENCODINGS)) {
    it(`${label}: a session opens with every field`, async () => {
      const r = await readSessionFile(write(`s${n++}.speedmatrix.json`, encode(serializeSession(session))));
      if (!r.ok) throw new Error(r.error.message);
      expect(r.data.cells).toEqual(session.cells);
    });
    it(`${label}: llm-inference-bench results import`, async () => {
      const r = await importFile(write(`b${n++}.json`, encode(seed)));
      if (!r.ok) throw new Error(r.error);
      expect(r.data.cells.length).toBeGreaterThan(0);
    });
    it(`${label}: a simulator profile loads`, () => {
      const r = loadProfile(write(`p${n++}.json`, encode(profile)));
      if (!r.ok) throw new Error(r.error);
      expect(r.data.name).toBe('from-windows');
    });
  }

  it('a UTF-16 BOM followed by bytes that are not UTF-16 is refused with that reason', async () => {
    const f = write('broken.json', Buffer.from([0xff, 0xfe, 0x7b, 0x00, 0x00, 0xd8]));
    expect(await readSessionFile(f)).toMatchObject({
      ok: false,
      error: {
        message:
          'broken.json is not valid UTF-16LE text (it starts with a UTF-16LE byte order mark), so it is not a session file.',
      },
    });
    expect(decodeText(Buffer.from([0xc3, 0x28]))).toEqual({ ok: false, error: 'not valid UTF-8 text' });
  });

  it('file types ignore case: RESULTS.JSON opens and imports like results.json', async () => {
    expect(hasExtension('C:\\Users\\me\\RESULTS.JSON', '.json')).toBe(true);
    expect(hasExtension('run.SpeedMatrix.Json', '.speedmatrix.json')).toBe(true);
    expect(hasExtension('notes.txt', '.json')).toBe(false);
    const f = write('RESULTS.JSON', ENCODINGS['UTF-16LE with BOM (PowerShell 5 Out-File, Notepad "Unicode")'](seed));
    const r = await openSessionOrImport(f);
    expect(r.ok).toBe(true);
  });
});
