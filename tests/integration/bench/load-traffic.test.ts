/**
 * Real traffic against the simulator process, checked with its own request log (GET /sim/requests)
 * as ground truth: a Mooncake trace replayed at its own times whose prompts share exactly the
 * prefixes its hash ids say (the server's prefix cache finds them), conversations whose later turns
 * send the history back, and a thinking model whose reasoning is counted apart from its answer, in
 * a load pass and in a matrix cell.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import type { Session } from '#shared/session/schema';
import { matrixRunArgs, sessionFromCli } from '../../helpers/cli';
import { simTest as it } from '../../helpers/fixtures';
import { ROOT } from '../../helpers/paths';

interface SimRequest {
  endpoint: string;
  arrival_ms: number;
  prompt_tokens: number;
  cached_prompt_tokens: number;
  completion_tokens: number;
}

async function simLog(url: string): Promise<SimRequest[]> {
  const r = await fetch(`${url}/sim/requests`);
  const all = ((await r.json()) as { requests: SimRequest[] }).requests;
  // Requests that asked for more than one token: the client's own probes (/tokenize, one-token counts) are not the load.
  return all
    .filter((q) => q.endpoint.endsWith('/completions') && q.completion_tokens > 1)
    .sort((a, b) => a.arrival_ms - b.arrival_ms);
}

async function cli(args: string[], out: string): Promise<{ session: Session; stdout: string }> {
  const { session, result } = await sessionFromCli(args, out);
  expect(result.stderr).toBe('');
  return { session, stdout: result.stdout };
}

const trace = (name: string) => join(ROOT, 'tests/fixtures/traces', name);

describe('a replayed Mooncake trace', () => {
  it("the format's own example: the second request arrives 3.053 s after the first and finds its 12 shared blocks cached", async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, args: ['--served-model-name', 'fara'] });
    const { session, stdout } = await cli(
      ['load', '--url', sim.url, '--trace', trace('mooncake-readme.jsonl')],
      join(tempDir('sm-trace-'), 'readme.speedmatrix.json'),
    );
    const log = await simLog(sim.url);
    expect(log).toHaveLength(2);
    expect((log[1].arrival_ms - log[0].arrival_ms) / 1000).toBeCloseTo(3.053, 1);
    expect(log.map((q) => q.completion_tokens)).toEqual([52, 26]);
    // Prompts as long as the trace says, within the estimate of the server's tokens per character.
    expect(log[0].prompt_tokens / 6955).toBeGreaterThan(0.97);
    expect(log[0].prompt_tokens / 6955).toBeLessThan(1.03);
    // 12 blocks of 512 tokens shared, and nothing of the first request's own blocks 2353, 2354.
    expect(log[0].cached_prompt_tokens).toBeLessThan(64);
    expect(log[1].cached_prompt_tokens / 6144).toBeGreaterThan(0.97);
    expect(log[1].cached_prompt_tokens / 6144).toBeLessThan(1.03);
    const [r] = session.load!.results;
    expect(r.pass).toBe('trace');
    expect(r.requests).toBe(2);
    expect(r.completed).toBe(2);
    expect(session.load!.config.trace).toEqual({
      file: 'mooncake-readme.jsonl',
      speed: 1,
      requests: 2,
      spanSeconds: 3.053,
    });
    // The server's own counters over the pass: the hits the log shows, out of the prompts' tokens.
    const hits = log.reduce((n, q) => n + q.cached_prompt_tokens, 0);
    expect(r.prefixCache?.hitTokens).toBe(hits);
    expect(r.prefixCache?.queriedTokens).toBeGreaterThanOrEqual(log[0].prompt_tokens + log[1].prompt_tokens);
    expect(r.arrivalLag?.p99).toBeLessThan(0.25);
    expect(stdout).toContain('[1/1] trace replay pass...');
    expect(stdout).toMatch(/trace replay: the server's prefix cache found \d+% of [\d,]+ prompt tokens/);
  }, 120_000);

  it('at twice its speed on a sped-up simulator: arrivals at half the gaps in server seconds, each group’s prefix cached', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, speed: 5, args: ['--served-model-name', 'fara'] });
    const { session } = await cli(
      ['load', '--url', sim.url, '--sim-speed', '5', '--trace', trace('two-prefix-groups.jsonl'), '--trace-speed', '2'],
      join(tempDir('sm-trace-'), 'groups.speedmatrix.json'),
    );
    const log = await simLog(sim.url);
    expect(log).toHaveLength(12);
    // 250 ms apart in the trace, 125 ms at twice its speed, in server seconds (5 per wall second).
    const gaps = log.slice(1).map((q, i) => ((q.arrival_ms - log[i].arrival_ms) * 5) / 1000);
    const meanGap = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(meanGap).toBeCloseTo(0.125, 1);
    // Even lines share blocks 1-2 (1,024 tokens), odd lines block 7 (512): each after its group's first finds them.
    for (const [i, q] of log.entries()) {
      const expected = i < 2 ? 0 : i % 2 === 0 ? 1024 : 512;
      expect(Math.abs(q.cached_prompt_tokens - expected), `request ${i}`).toBeLessThan(48);
    }
    const [r] = session.load!.results;
    expect([r.pass, r.requests, r.completed, r.errors]).toEqual(['trace', 12, 12, 0]);
    expect(r.offeredRate).toBeCloseTo(12 / 1.375, 0);
  }, 120_000);
});

describe('conversations', () => {
  it('each later turn sends the history back: its prompt holds the earlier turns, found in the prefix cache', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, speed: 10, args: ['--served-model-name', 'fara'] });
    const { session } = await cli(
      [
        'load',
        '--url',
        sim.url,
        '--sim-speed',
        '10',
        '--rates',
        '1',
        '--duration',
        '6',
        '--warmup',
        '0',
        '--turns',
        '3',
        '--think-time',
        '0.5',
        '--input-len',
        '600',
        '--output-len',
        '40',
      ],
      join(tempDir('sm-turns-'), 'turns.speedmatrix.json'),
    );
    const log = await simLog(sim.url);
    const firsts = log.filter((q) => q.prompt_tokens < 900);
    const laters = log.filter((q) => q.prompt_tokens >= 1200);
    expect(firsts.length).toBeGreaterThan(2);
    expect(laters.length).toBeGreaterThan(2);
    // A first turn is new text (only the template's first tokens may be cached); a later one finds at least a first turn.
    for (const q of firsts) expect(q.cached_prompt_tokens).toBeLessThan(48);
    for (const q of laters) expect(q.cached_prompt_tokens).toBeGreaterThan(560);
    const [r] = session.load!.results;
    expect(r.ttftByTurn?.map((t) => t.turn)).toEqual([1, 2, 3]);
    expect(session.load!.config.conversation).toEqual({ turns: 3, thinkSeconds: 0.5 });
  }, 120_000);
});

describe('conversations from a file', () => {
  it("a ShareGPT file's conversations send their own human turns, in order, each after the history; a shorter one ends sooner", async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ debug: true, args: ['--served-model-name', 'fara'] });
    const { session } = await cli(
      [
        'load',
        '--url',
        sim.url,
        '--rates',
        '1',
        '--arrivals',
        'constant',
        '--duration',
        '3',
        '--warmup',
        '0',
        '--turns',
        '3',
        '--dataset',
        join(ROOT, 'tests/fixtures/load/sharegpt-multiturn.json'),
        '--output-len',
        '12',
      ],
      join(tempDir('sm-chats-'), 'chats.speedmatrix.json'),
    );
    // Three conversations start (at 0, 1 and 2 s), each done within a second: two of three turns and one of two, 8 requests.
    const log = await simLog(sim.url);
    expect(log).toHaveLength(8);
    const [r] = session.load!.results;
    expect(r.ttftByTurn?.map((t) => [t.turn, t.ttft.count])).toEqual([
      [1, 3],
      [2, 3],
      [3, 2],
    ]);
    // A later turn's prompt holds the earlier ones: longer than any first message, and mostly cached.
    // A later turn's prompt holds the earlier ones: longer than any first message, and found in the cache in part
    // (whole 16-token blocks of it: these messages are short).
    const firsts = log.filter((q) => q.cached_prompt_tokens === 0);
    const laters = log.filter((q) => q.cached_prompt_tokens > 0);
    expect([firsts.length, laters.length]).toEqual([3, 5]);
    const firstLongest = Math.max(...firsts.map((q) => q.prompt_tokens));
    for (const q of laters) expect(q.prompt_tokens).toBeGreaterThan(firstLongest);
  }, 120_000);
});

describe('a thinking model', () => {
  it('reasoning is counted apart: 256 reasoning tokens, the first answer token after them, in a load pass and a matrix cell', async ({
    launchSim,
    tempDir,
  }) => {
    const sim = await launchSim({ profile: 'h200-qwen3-8b-thinking', speed: 10, args: ['--served-model-name', 'q'] });
    const dir = tempDir('sm-think-');
    const { session: load, stdout } = await cli(
      [
        'load',
        '--url',
        sim.url,
        '--sim-speed',
        '10',
        '--rates',
        '2',
        '--duration',
        '6',
        '--warmup',
        '1',
        '--input-len',
        '300',
        '--output-len',
        '320',
      ],
      join(dir, 'load.speedmatrix.json'),
    );
    const [r] = load.load!.results;
    expect(r.meanReasoningTokens).toBe(256);
    // The answer starts after the reasoning: at least 255 steps after the first token.
    expect(r.timeToFirstAnswer!.p50).toBeGreaterThan(r.ttft!.p50 + 255 * r.timeBetweenTokens!.p50 * 0.9);
    expect(stdout).toContain('256.0 reasoning tokens per request');
    const { session: matrix } = await cli(
      matrixRunArgs(sim.url, {
        contexts: '0',
        concurrency: '2',
        prefill: '8k',
        duration: 6,
        maxOutput: 400,
        simSpeed: 10,
      }),
      join(dir, 'matrix.speedmatrix.json'),
    );
    const [cell] = matrix.cells;
    expect(cell.reasoningTokensPerRequest).toBe(256);
    expect(cell.timeToFirstAnswer!.p50).toBeGreaterThan(cell.ttft!.p50);
  }, 180_000);
});
