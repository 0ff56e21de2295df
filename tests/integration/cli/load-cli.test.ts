/**
 * `speedmatrix load` as from a terminal: a bad value of every flag exits 2 with the flag named
 * before any server is touched, and a short run against the simulator process with prompts from a
 * ShareGPT file, the completions endpoint, constant arrivals, an in-flight cap and latency targets
 * saves a load session whose requests the simulator's log confirms and which records the server's
 * hardware.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { simTest } from '../../helpers/fixtures';
import { ROOT } from '../../helpers/paths';

const it = simTest.override('simOptions', { scope: 'file' }, { debug: true, args: ['--served-model-name', 'fara'] });

describe('usage errors', () => {
  it.each([
    [['--rates', '1'], 'say which server to load: --url URL, --launch -- CMD..., or --demo.'],
    [['--url', 'http://127.0.0.1:9', '--demo', '--rates', '1'], 'choose one of --url, --launch and --demo.'],
    [['--url', 'http://127.0.0.1:9'], 'say which request rates to offer: --rates 0.5,1,2,4 or --rates sweep.'],
    [['--url', 'http://127.0.0.1:9', '--rates', '2,x'], '--rates: "x" is not a positive number of requests per second'],
    [
      ['--url', 'http://127.0.0.1:9', '--rates', '1', '--arrivals', 'gamma:0'],
      '--arrivals must be poisson, constant or gamma:CV',
    ],
    [['--url', 'http://127.0.0.1:9', '--rates', '1', '--slo', 'ttft<500ms'], '--slo: "ttft<500ms" is not a target'],
    [
      ['--url', 'http://127.0.0.1:9', '--rates', '1', '--dataset', '/nonexistent/p.jsonl'],
      '--dataset: cannot read /nonexistent/p.jsonl: ENOENT.',
    ],
    [
      ['--url', 'http://127.0.0.1:9', '--rates', '1', '--out', '/nonexistent/dir/s.json'],
      '--out: the folder /nonexistent/dir does not exist',
    ],
    [['--rates', '1', '--launch'], '--launch needs the server command after --'],
    ...(
      [
        [['--rates', 'sweep', '--sweep-points', '0'], '--sweep-points must be a positive whole number, got "0".'],
        [['--max-in-flight', '1.5'], '--max-in-flight must be a positive whole number, got "1.5".'],
        [['--duration', '0'], '--duration must be a positive number, got "0".'],
        [['--warmup', '-1'], '--warmup must be a number of seconds, 0 or more, got "-1".'],
        [['--input-len', '0'], '--input-len: "0" is not a positive whole number of tokens'],
        [['--output-len', '10-5'], '--output-len: the range 10-5 runs backwards'],
        [['--shared-prefix', '8k'], "--shared-prefix 8192 leaves no room for each request's own part"],
        [['--endpoint', 'responses'], '--endpoint must be chat or completions, got "responses".'],
        [['--seed', 'x'], '--seed must be a whole number, got "x".'],
        [['--hardware', '/nonexistent/hw.json'], '--hardware: Cannot read the hardware file /nonexistent/hw.json'],
        [['--sim-speed', '0'], '--sim-speed must be a positive number, got "0".'],
        [['--ready-timeout', 'no'], '--ready-timeout must be a positive number, got "no".'],
        [['--api-key-file', '/nonexistent/key'], '--api-key-file: cannot read /nonexistent/key'],
        [
          ['--dataset', join(ROOT, 'tests/fixtures/load/sharegpt-small.json'), '--input-len', '100'],
          '--dataset brings its own prompts: leave out --input-len and --shared-prefix.',
        ],
      ] as Array<[string[], string]>
    ).map(([args, message]): [string[], string] => [
      ['--url', 'http://127.0.0.1:9', ...(args[0] === '--rates' ? [] : ['--rates', '1']), ...args],
      message,
    ]),
  ])('load %j exits 2 with the reason', async (args, message) => {
    const r = await runCli(['load', ...args]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`speedmatrix load: ${message}`);
    expect(r.stdout).toBe('');
  });
});

describe('a run', () => {
  it('prompts from a ShareGPT file on the completions endpoint, constant arrivals under a cap, goodput under targets', async ({
    sim,
    tempDir,
  }) => {
    const out = join(tempDir('sm-load-cli-'), 'load.speedmatrix.json');
    const r = await runCli(
      [
        'load',
        '--url',
        sim.url,
        '--rates',
        '2',
        '--arrivals',
        'constant',
        '--max-in-flight',
        '8',
        '--duration',
        '10',
        '--warmup',
        '1',
        '--dataset',
        join(ROOT, 'tests/fixtures/load/sharegpt-small.json'),
        '--endpoint',
        'completions',
        '--slo',
        'ttft<=2s,e2e<=30s',
        '--out',
        out,
      ],
      { timeoutMs: 180_000 },
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Largest rate within the targets: 2\.0 req\/s/);
    const s = await readSessionFile(out);
    if (!s.ok) throw new Error(s.error.message);
    const load = s.data.load!;
    expect(load.config).toMatchObject({ dataset: 'sharegpt-small.json', endpoint: 'completions', maxInFlight: 8 });
    expect(load.results[0]).toMatchObject({ requests: 20, completed: 20, errors: 0, keptUp: true, sloShare: 1 });
    expect(load.bestRateWithinSlo).toBe(2);
    const log = (await (await fetch(`${sim.url}/sim/requests`)).json()) as {
      requests: Array<{ endpoint: string; max_tokens: number }>;
    };
    const sent = log.requests.filter((q) => q.endpoint === '/v1/completions');
    expect(sent.length).toBe(22);
    // Output lengths come from the file's answers: two sizes, one per conversation.
    expect(new Set(sent.map((q) => q.max_tokens)).size).toBe(2);
    // The server's hardware, recorded as a matrix run records it (a simulator: its profile's GPU), and reported.
    const version = (await (await fetch(`${sim.url}/version`)).json()) as { sim_gpu: { name: string } };
    const gpu = `${version.sim_gpu.name} (simulated)`;
    expect(s.data.hardware.gpus.map((g) => g.name)).toEqual([gpu]);
    expect(s.data.hardware.gpuType).toBe('Simulated GPU');
    const md = out.replace(/\.speedmatrix\.json$/, '.md');
    expect((await runCli(['report', out, '--out', md])).code).toBe(0);
    const report = readFileSync(md, 'utf8');
    const hardwareBlock = report.split('\n## ').find((b) => b.startsWith('Hardware\n'));
    expect(hardwareBlock).toContain(`**GPU**: ${gpu}`);
    expect(report).toContain('\n## Load\n');
  }, 200_000);
});
