/**
 * The matrix's prompt shapes through the real CLI and the simulator process: `--output-len` draws each
 * decode request's max_tokens from its distribution and `--shared-prefix` puts the same text first in
 * every prompt, as the simulator's own request log shows (its max_tokens and prefix-cache hits); both
 * are recorded in the session, shown in the report's Run block and kept by a resume's plan. Bad values
 * exit 2 with the flag named.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { planForResume } from '../../../src-main/engine/bench/start-run';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { simTest } from '../../helpers/fixtures';
import { simRequests, targetOf } from './bench-helpers';

const it = simTest.override(
  'simOptions',
  { scope: 'file' },
  { debug: true, speed: 10, args: ['--served-model-name', 'fara'] },
);

const EXAMPLE = '(e.g. --output-len 1024, --output-len 512-2048 or --output-len 1024~256)';

describe('bad prompt shapes', () => {
  it.each([
    [['--output-len', '64-16'], `--output-len: the range 64-16 runs backwards ${EXAMPLE}.`],
    [['--output-len', 'lots'], `--output-len: "lots" is not a positive whole number of tokens ${EXAMPLE}.`],
    [['--output-len', '256~x'], `--output-len: the spread "x" is not a number of tokens ${EXAMPLE}.`],
    [
      ['--output-len', '64', '--max-output', '128'],
      "--output-len sets each request's max_tokens: leave out --max-output.",
    ],
    [
      ['--shared-prefix', '0'],
      '--shared-prefix: "0" is not a positive whole number of tokens (e.g. --shared-prefix 4096).',
    ],
    [
      ['--shared-prefix', '4k', '--contexts', '0,2k,8k'],
      "--shared-prefix 4096 leaves no room for the context's own part at 2048 tokens: every non-zero context must be longer.",
    ],
  ])('run %j exits 2 with the reason', async (args, message) => {
    const r = await runCli(['run', '--url', 'http://127.0.0.1:9', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`speedmatrix run: ${message}`);
  });
});

describe('a matrix with an output length distribution and a shared prefix', () => {
  it('sends what the flags say, records it, reports it and resumes with it', async ({ sim, tempDir }) => {
    const out = join(tempDir('sm-shapes-'), 'shapes.speedmatrix.json');
    const r = await runCli(
      [
        'run',
        '--url',
        sim.url,
        '--contexts',
        '0,2k',
        '--concurrency',
        '4',
        '--duration',
        '6',
        '--output-len',
        '16-64',
        '--shared-prefix',
        '512',
        '--out',
        out,
        '--report',
        out.replace(/\.speedmatrix\.json$/, '.md'),
      ],
      { timeoutMs: 240_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const read = await readSessionFile(out);
    if (!read.ok) throw new Error(read.error.message);
    const s = read.data;
    expect(s.runConfig).toMatchObject({
      outputLength: { kind: 'uniform', min: 16, max: 64 },
      sharedPrefixTokens: 512,
      maxOutputTokens: 64,
    });

    const log = (await simRequests(sim.url)).sort((a, b) => a.arrival_ms - b.arrival_ms);
    // Requests that decode: the two warm-up decodes come first, then the cells' requests.
    const drawn = log.filter((q) => q.max_tokens > 1).slice(2);
    expect(drawn.length).toBeGreaterThanOrEqual(20);
    const lengths = drawn.map((q) => q.max_tokens);
    expect(Math.min(...lengths)).toBeGreaterThanOrEqual(16);
    expect(Math.max(...lengths)).toBeLessThanOrEqual(64);
    expect(new Set(lengths).size).toBeGreaterThanOrEqual(8);
    // Uniform on 16..64: mean 40, standard deviation 14; the mean of n draws within 3 standard errors.
    const meanLength = lengths.reduce((a, b) => a + b, 0) / lengths.length;
    expect(Math.abs(meanLength - 40)).toBeLessThan((3 * 14) / Math.sqrt(lengths.length));
    const finished = drawn.filter((q) => q.finish_reason === 'length');
    expect(finished.length).toBeGreaterThan(0);
    for (const q of finished) expect(q.completion_tokens).toBe(q.max_tokens);

    // The 2K prompts' prefills (scouts and measured prefill, max_tokens 1) find the shared prefix in the cache.
    const prefills = log.filter((q) => q.max_tokens === 1 && q.prompt_tokens > 1500 && q.prompt_tokens <= 2048);
    expect(prefills.length).toBeGreaterThan(0);
    for (const q of prefills) {
      expect(q.cached_prompt_tokens).toBeGreaterThanOrEqual(0.8 * 512);
      expect(q.cached_prompt_tokens).toBeLessThan(512 + 64);
    }

    const md = readFileSync(out.replace(/\.speedmatrix\.json$/, '.md'), 'utf8');
    expect(md).toContain('- **Output length**: 16-64 tokens, drawn for each request');
    expect(md).toContain('- **Shared prefix**: 512 tokens first in every prompt');

    const plan = planForResume(s, await targetOf(sim.url), {});
    expect(plan.config.outputLength).toEqual({ kind: 'uniform', min: 16, max: 64 });
    expect(plan.config.sharedPrefixTokens).toBe(512);
    expect(plan.config.maxOutputTokens).toBe(64);
  }, 300_000);
});
