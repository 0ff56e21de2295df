/**
 * `speedmatrix compare --gpu-price` as a person runs it: the real CLI in a child process on two
 * session files, the overlay's tok/s per price per hour in the price's currency (the server's price
 * counting every GPU it used), and a price that is not one refused with exit 2 before anything is read.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serializeSession } from '../../../src-main/platform/session/write';
import { runCli } from '../../helpers/cli';
import { sampleSession } from '../../helpers/sample-session';

let dir: string;
let files: string[];

describe('speedmatrix compare --gpu-price', () => {
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'sm-compare-price-'));
    const one = sampleSession();
    const two = sampleSession();
    two.server.display = `${two.server.display} --tensor-parallel-size 2`;
    files = [join(dir, 'one.speedmatrix.json'), join(dir, 'two.speedmatrix.json')];
    writeFileSync(files[0], serializeSession(one));
    writeFileSync(files[1], serializeSession(two));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("ranks the sessions by tok/s per the server's price per hour, in the price's currency", async () => {
    const r = await runCli(['compare', ...files, '--gpu-price', '2 EUR']);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    // 282.8 tok/s at 8K × 2 over 2 EUR/h for one GPU, and over 4 EUR/h for two.
    const section = r.stdout.slice(r.stdout.indexOf('### Per price per hour'));
    expect(section).toMatch(
      /- 1\\\. A · RTX PRO 6000 Blackwell Server Edition × 1 · SpeedMatrix 0\.1\.0: 141\.4 tok\/s per EUR\/h at 8K × 2/,
    );
    expect(section).toMatch(
      /- 2\\\. B · RTX PRO 6000 Blackwell Server Edition × 2 · SpeedMatrix 0\.1\.0: 70\.7 tok\/s per EUR\/h at 8K × 2/,
    );
  }, 60_000);

  it('refuses a price that is not one (exit 2), saying what it takes', async () => {
    const r = await runCli(['compare', ...files, '--gpu-price', 'cheap']);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('--gpu-price: "cheap" is not a price; give the price of one GPU for one hour');
  }, 60_000);
});
