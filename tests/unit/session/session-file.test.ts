import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_SESSION_BYTES, parseSessionText, readSessionFile } from '../../../src-main/platform/session/read';
import { SESSION_FORMAT_VERSION } from '#shared/session/schema';
import { serializeSession, writeSessionFile } from '../../../src-main/platform/session/write';
import { sampleSession } from '../../helpers/sample-session';

const dir = mkdtempSync(join(tmpdir(), 'sm-session-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const write = (name: string, text: string | Buffer): string => {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
};

describe('session file format v1', () => {
  it('round-trips a valid session through a real file', async () => {
    const session = sampleSession();
    const file = join(dir, 'ok.speedmatrix.json');
    const saved = await writeSessionFile(file, session);
    expect(saved.ok).toBe(true);
    const read = await readSessionFile(file);
    if (!read.ok) throw new Error(read.error.message);
    expect({ ...read.data, updatedAt: '' }).toEqual({ ...session, updatedAt: '' });
    expect(read.data.cells[3].evidence?.loopExcerpt).toBe('and the river kept running, ');
  });

  it('says a truncated file is truncated, naming the file', async () => {
    const text = serializeSession(sampleSession());
    const file = write('cut.speedmatrix.json', text.slice(0, Math.floor(text.length / 2)));
    const read = await readSessionFile(file);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.message).toContain('cut.speedmatrix.json');
    expect(read.error.message).toMatch(/not valid JSON.*truncated/);
  });

  it('names the field path and the expected type for a wrong type deep inside', () => {
    const doc = JSON.parse(serializeSession(sampleSession()));
    doc.cells[2].ttft.p50 = 'fast';
    const read = parseSessionText(JSON.stringify(doc), '/x/deep.speedmatrix.json');
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.path).toBe('cells[2].ttft.p50');
    expect(read.error.message).toContain('deep.speedmatrix.json');
    expect(read.error.message).toContain('cells[2].ttft.p50');
    expect(read.error.message).toMatch(/expected number, got string/);
  });

  it('names a missing required field', () => {
    const doc = JSON.parse(serializeSession(sampleSession()));
    delete doc.engine;
    const read = parseSessionText(JSON.stringify(doc), 'missing.speedmatrix.json');
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.path).toBe('engine');
    expect(read.error.message).toMatch(/field engine: expected object, got nothing \(the field is missing\)/);
  });

  it('refuses a file from a newer format version with a message saying so', () => {
    const doc = JSON.parse(serializeSession(sampleSession()));
    doc.formatVersion = SESSION_FORMAT_VERSION + 1;
    doc.somethingNew = { a: 1 };
    const read = parseSessionText(JSON.stringify(doc), 'future.speedmatrix.json');
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.message).toMatch(/newer SpeedMatrix \(session format version 2\).*Update SpeedMatrix/);
  });

  it('refuses a 100 MB file before reading it, with a clear message', async () => {
    const file = write('huge.speedmatrix.json', '{');
    truncateSync(file, 100 * 1024 * 1024);
    expect(100 * 1024 * 1024).toBeGreaterThan(MAX_SESSION_BYTES);
    const read = await readSessionFile(file);
    expect(read.ok).toBe(false);
    if (read.ok) return;
    expect(read.error.message).toMatch(
      /huge\.speedmatrix\.json is 100\.0 MB; SpeedMatrix opens session files up to 64 MB/,
    );
  });

  it('keeps a <script> string as plain data (it is shown as text, never as HTML)', async () => {
    const session = sampleSession();
    session.server.servedModel = '<script>alert(1)</script>';
    const file = join(dir, 'script.speedmatrix.json');
    expect((await writeSessionFile(file, session)).ok).toBe(true);
    const read = await readSessionFile(file);
    if (!read.ok) throw new Error(read.error.message);
    expect(read.data.server.servedModel).toBe('<script>alert(1)</script>');
  });

  it('rejects invalid UTF-8 and deep nesting without crashing', async () => {
    const bad = await readSessionFile(write('bytes.speedmatrix.json', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])));
    expect(bad.ok || bad.error.message).toMatch(/not valid UTF-8/);
    const deep = parseSessionText('['.repeat(200_000) + ']'.repeat(200_000), 'deep.json');
    expect(deep.ok).toBe(false);
  });

  it('never writes an API key, whatever the caller passed', async () => {
    const session = sampleSession();
    session.server.argv = [
      'vllm',
      'serve',
      'm',
      '--api-key',
      'sk-live-SECRET123',
      '--x=1',
      '--api-key=sk-live-SECRET456',
    ];
    session.server.env = { HF_TOKEN: 'hf_SECRET789', VLLM_LOGGING_LEVEL: 'INFO' };
    const file = join(dir, 'secret.speedmatrix.json');
    expect((await writeSessionFile(file, session)).ok).toBe(true);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/SECRET/);
    expect(text).toContain('VLLM_LOGGING_LEVEL');
  });

  it('writes atomically: a failed save says why, keeps what was there, and leaves no temp file', async () => {
    const missing = await writeSessionFile(join(dir, 'no-such-dir', 'x.speedmatrix.json'), sampleSession());
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.error).toMatch(/Could not save .*x\.speedmatrix\.json: the folder does not exist/);

    // The target is a folder: the rename fails after the temp file was fully written.
    const target = join(dir, 'occupied.speedmatrix.json');
    mkdirSync(target);
    writeFileSync(join(target, 'keep.txt'), 'kept');
    const blocked = await writeSessionFile(target, sampleSession());
    expect(blocked.ok).toBe(false);
    expect(readFileSync(join(target, 'keep.txt'), 'utf8')).toBe('kept');
  });

  it('leaves no temp files after successful saves', () => {
    expect(readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});
