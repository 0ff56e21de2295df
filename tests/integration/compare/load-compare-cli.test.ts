/**
 * `speedmatrix compare` of load sessions as a person runs it: the real CLI in a child process on
 * the peers' result files (read as load sessions), and a load session beside a matrix session
 * refused with exit 2, naming each file.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli';
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
