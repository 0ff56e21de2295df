/**
 * `speedmatrix compare` of load sessions as a person runs it: the real CLI in a child process on
 * the peers' result files (read as load sessions), a load session beside a matrix session
 * refused with exit 2, naming each file, and the regression gate on two load sessions measured
 * against the simulator, one of them capped at two requests running.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
import { simTest } from '../../helpers/fixtures';
import { ROOT } from '../../helpers/paths';

const PEERS = join(ROOT, 'tests/fixtures/peers');
const MATRIX = join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json');

describe('speedmatrix compare of load sessions', () => {
  it('puts a GuideLLM sweep beside a vLLM bench serve run: verdict, workloads and passes matched by rate', async () => {
    const r = await runCli([
      'compare',
      join(PEERS, 'vllm-bench-serve-rate4.json'),
      join(PEERS, 'guidellm-benchmarks.json'),
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/- \*\*B against A: most achieved 18\.0 vs \d+\.\d req\/s \(\d+\.\d\d×\)\.\*\*/);
    expect(r.stdout).toContain('## Load');
    expect(r.stdout).toMatch(/\| 4\.0 req\/s \| [\d.]+ \| — \|/);
    expect(r.stdout).toMatch(/\| synchronous \| — \| 0\.80 \|/);
    expect(r.stdout).not.toContain('## Prefill');
  }, 60_000);

  it('refuses a load session beside a matrix session (exit 2), naming each file', async () => {
    const r = await runCli(['compare', join(PEERS, 'guidellm-benchmarks.json'), MATRIX]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      "guidellm-benchmarks.json is a load session and fara-benchmark_results.json is a matrix session: a load run's request rates and a matrix's cells measure different things. Compare load sessions with load sessions.",
    );
  }, 60_000);
});

describe('the regression gate on load sessions', () => {
  /** A short load run at `rates` against `url`, saved to `out`. */
  const load = async (url: string, rates: string, out: string) => {
    const r = await runCli(
      ['load', '--url', url, '--rates', rates, '--arrivals', 'constant', '--duration', '6', '--warmup', '1'].concat([
        '--input-len',
        '512',
        '--output-len',
        '64',
        '--out',
        out,
      ]),
      { timeoutMs: 150_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  };

  simTest(
    'fails a server capped at two running requests at the rate it could not keep up with, and refuses passes at other rates',
    async ({ launchSim, tempDir }) => {
      const dir = tempDir('sm-load-gate-');
      const [open, capped] = await Promise.all([launchSim(), launchSim({ args: ['--max-num-seqs', '2'] })]);
      const [a, b, other] = ['a', 'b', 'other'].map((n) => join(dir, `${n}.speedmatrix.json`));
      await load(open.url, '8', a);
      await load(capped.url, '8', b);
      const gated = await runCli(['compare', a, b, '--max-regression', '5%']);
      expect(gated.code).toBe(3);
      expect(gated.stderr).toMatch(/^Regression gate: \d+ figures slower by more than 5% beyond the noise:\n/);
      expect(gated.stderr).toMatch(/^ {2}B \/ A at 8\.0 req\/s: output tok\/s 0\.\d\d× \(\d+% slower: /m);
      expect(gated.stderr).toMatch(/^ {2}B \/ A at 8\.0 req\/s: TTFT p99 0\.\d\d× \(\d+% slower: /m);
      // The same server against itself passes: a tie is no regression.
      const same = await runCli(['compare', a, a, '--max-regression', '5%']);
      expect(same.code).toBe(0);
      expect(same.stderr).toContain('Regression gate: no figure slower by more than 5% beyond the noise.');
      // Passes at rates the first session never offered cannot be gated: exit 2 saying why, nothing printed.
      await load(open.url, '2', other);
      const apart = await runCli(['compare', a, other, '--max-regression', '5%']);
      expect(apart.code).toBe(2);
      expect(apart.stdout).toBe('');
      expect(apart.stderr).toBe(
        "speedmatrix compare: the regression gate compares passes at the same offered rate, and B offered 2.0 req/s against A's 8.0 req/s. Run them at the same --rates (or both as a --sweep).\n",
      );
    },
    400_000,
  );
});
