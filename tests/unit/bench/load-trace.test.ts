/**
 * A Mooncake trace as published (its README's own two lines, in tests/fixtures/traces): times in
 * seconds from the first request, lengths, hash ids; what is refused names the line and the field.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseTrace, readTrace, traceSpanSeconds, withTrace } from '../../../src-main/engine/bench/load-trace';
import { loadConfigFrom } from '../../../src-main/workflows/inputs/load-input';
import { ROOT } from '../../helpers/paths';

const fixture = (name: string) => readFileSync(join(ROOT, 'tests/fixtures/traces', name), 'utf8');

describe('a Mooncake trace', () => {
  it("reads the format's own example: arrivals in seconds from the first, lengths and the shared blocks", () => {
    const t = parseTrace(fixture('mooncake-readme.jsonl'), 'mooncake-readme.jsonl');
    expect(t.map((e) => [e.atSeconds, e.inputTokens, e.outputTokens])).toEqual([
      [0, 6955, 52],
      [3.053, 6472, 26],
    ]);
    // The two prompts share their first 12 blocks (12 x 512 = 6,144 tokens), then part.
    const shared = t[0].hashIds.findIndex((id, i) => t[1].hashIds[i] !== id);
    expect(shared).toBe(12);
    expect(traceSpanSeconds(t, 1)).toBe(3.053);
    expect(traceSpanSeconds(t, 2)).toBeCloseTo(1.5265, 9);
  });

  it('sorts lines by their time, skips blank ones, and a line without hash ids shares nothing', () => {
    const t = parseTrace(
      '{"timestamp": 900, "input_length": 40, "output_length": 5}\n  \t\n{"timestamp": 100, "input_length": 600, "output_length": 8, "hash_ids": [3, 4]}\n',
      'f',
    );
    expect(t).toEqual([
      { atSeconds: 0, inputTokens: 600, outputTokens: 8, hashIds: [3, 4] },
      { atSeconds: 0.8, inputTokens: 40, outputTokens: 5, hashIds: [] },
    ]);
  });

  it('takes the smallest values it allows: one token in and out, block id 0, time 0', () => {
    expect(parseTrace('{"timestamp": 0, "input_length": 1, "output_length": 1, "hash_ids": [0]}', 'f')).toEqual([
      { atSeconds: 0, inputTokens: 1, outputTokens: 1, hashIds: [0] },
    ]);
  });

  it('reads a file, and names a file it cannot read with the reason', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-trace-'));
    try {
      const file = join(dir, 't.jsonl');
      writeFileSync(file, '{"timestamp": 2000, "input_length": 9, "output_length": 3}\n');
      expect(await readTrace(file)).toEqual([{ atSeconds: 0, inputTokens: 9, outputTokens: 3, hashIds: [] }]);
      await expect(readTrace(join(dir, 'missing.jsonl'))).rejects.toThrow(
        `--trace: cannot read ${join(dir, 'missing.jsonl')}: ENOENT.`,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses what it cannot replay, naming the line and the field', () => {
    const ok = '{"timestamp": 0, "input_length": 600, "output_length": 8, "hash_ids": [1, 2]}';
    const bad = (line: string) => () => parseTrace(`${ok}\n${line}\n`, 'trace.jsonl');
    expect(bad('not json')).toThrow('--trace: line 2 of trace.jsonl is not JSON');
    const shape = '{"timestamp": ms, "input_length": tokens, "output_length": tokens, "hash_ids": [ids]}';
    expect(bad('not json')).toThrow(`a trace has one object per line: ${shape}.`);
    for (const notObject of ['[1, 2]', 'null', '7', '"text"'])
      expect(bad(notObject)).toThrow(`--trace: line 2 of trace.jsonl is not an object: ${shape}.`);
    for (const time of ['"5"', '1e400', 'null', '-0.5'])
      expect(bad(`{"timestamp": ${time}, "input_length": 600, "output_length": 8}`)).toThrow(
        `line 2 of trace.jsonl: "timestamp" must be milliseconds, 0 or more (${shape}).`,
      );
    expect(bad('{"timestamp": 5, "input_length": "60", "output_length": 8}')).toThrow(
      '"input_length" must be a whole number of tokens, 1 or more.',
    );
    expect(bad('{"timestamp": -5, "input_length": 600, "output_length": 8}')).toThrow(
      'line 2 of trace.jsonl: "timestamp" must be milliseconds, 0 or more',
    );
    expect(bad('{"timestamp": 5, "input_length": 0, "output_length": 8}')).toThrow(
      '"input_length" must be a whole number of tokens, 1 or more.',
    );
    expect(bad('{"timestamp": 5, "input_length": 60, "output_length": 2.5}')).toThrow(
      '"output_length" must be a whole number of tokens, 1 or more.',
    );
    expect(bad('{"timestamp": 5, "input_length": 600, "output_length": 8, "hash_ids": [1, "x"]}')).toThrow(
      '"hash_ids" must be a list of whole numbers (one per 512-token block).',
    );
    // 600 tokens fill 2 blocks of 512: a third id names a block the prompt does not have.
    expect(bad('{"timestamp": 5, "input_length": 600, "output_length": 8, "hash_ids": [1, 2, 3]}')).toThrow(
      '3 hash ids are more blocks than 600 input tokens fill (512 tokens each).',
    );
    expect(() => parseTrace('\n\n', 'empty.jsonl')).toThrow('--trace: empty.jsonl holds no requests');
  });

  it("a replay's configuration takes the file's request count and span, at its speed, as its window", () => {
    const t = parseTrace(fixture('two-prefix-groups.jsonl'), 'two-prefix-groups.jsonl');
    const c = withTrace(loadConfigFrom({ trace: 'two-prefix-groups.jsonl', traceSpeed: '2' }), t);
    expect(c.trace).toEqual({ file: 'two-prefix-groups.jsonl', speed: 2, requests: 12, spanSeconds: 1.375 });
    expect(c.durationSeconds).toBe(1.375);
    const plain = loadConfigFrom({ rates: '1' });
    expect(withTrace(plain, t)).toBe(plain);
  });
});
