import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeSession } from '../../../src-main/platform/session/write';
import { runCli } from '../../helpers/cli';
import { sampleSession } from '../../helpers/sample-session';

const dir = mkdtempSync(join(tmpdir(), 'sm-validate-'));
const files: Record<string, string> = {};

beforeAll(() => {
  const good = serializeSession(sampleSession());
  const put = (name: string, text: string): void => {
    files[name] = join(dir, `${name}.speedmatrix.json`);
    writeFileSync(files[name], text);
  };
  put('valid', good);
  put('truncated', good.slice(0, 300));
  const wrongType = JSON.parse(good);
  wrongType.cells[1].timeBetweenTokens.p99 = 'slow';
  put('wrong-type', JSON.stringify(wrongType));
  const missing = JSON.parse(good);
  delete missing.runConfig.maxOutputTokens;
  put('missing-field', JSON.stringify(missing));
  const future = JSON.parse(good);
  future.formatVersion = 7;
  put('future', JSON.stringify(future));
  put('huge', '{');
  truncateSync(files.huge, 100 * 1024 * 1024);
  const script = sampleSession();
  script.server.servedModel = '<script>alert("x")</script>';
  put('script', serializeSession(script));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('speedmatrix validate', () => {
  it('exits 0 and prints a one-screen summary for a valid file', async () => {
    const r = await runCli(['validate', files.valid]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('VALID');
    expect(r.stdout).toMatch(/Model: +fara/);
    expect(r.stdout).toMatch(/GPU: +RTX PRO 6000 Blackwell Server Edition \(96 GB\)/);
    expect(r.stdout).toMatch(/Engine: +vllm · 0\.30\.1rc1\.dev452\+g73a583112 · BF16/);
    expect(r.stdout).toMatch(/Cells: +4 \(Valid 3, Looped 1\)/);
  });

  it.each([
    ['truncated', /looks truncated/],
    ['wrong-type', /field cells\[1\]\.timeBetweenTokens\.p99: expected number, got string/],
    ['missing-field', /field runConfig\.maxOutputTokens: expected number/],
    ['future', /newer SpeedMatrix \(session format version 7\)/],
    ['huge', /is 100\.0 MB; SpeedMatrix opens session files up to 64 MB/],
  ])('exits 1 with a clear message for a %s file', async (name, message) => {
    const r = await runCli(['validate', files[name]]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(message);
    expect(r.stderr).toContain(`${name}.speedmatrix.json`);
  });

  it('accepts a <script> string and prints it as plain text', async () => {
    const r = await runCli(['validate', files.script]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('<script>alert("x")</script>');
  });

  it('prints the error and where the help is, and exits 2 on a usage error', async () => {
    const r = await runCli(['validate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/missing required argument 'file'/);
    expect(r.stderr).toMatch(/Run 'speedmatrix validate --help' for the options\./);
    expect(r.stderr).not.toMatch(/Usage: speedmatrix validate/);
    const none = await runCli([]);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/Usage: speedmatrix/);
  });

  it('has --help for every command', async () => {
    for (const cmd of ['run', 'report', 'import', 'compare', 'hw', 'serve', 'sim', 'validate']) {
      const r = await runCli([cmd, '--help']);
      expect(r.code, cmd).toBe(0);
      expect(r.stdout, cmd).toContain(`Usage: speedmatrix ${cmd}`);
    }
  });
});
