/**
 * Prompt files for `speedmatrix load --dataset`: ShareGPT-style JSON and JSON Lines, read by their
 * field names, with entries that hold no prompt left out and unusable files refused with the reason.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseDataset, readDataset } from '../../../src-main/engine/bench/load-dataset';
import { ROOT } from '../../helpers/paths';

const fixture = (name: string) => join(ROOT, 'tests/fixtures/load', name);

describe('dataset files', () => {
  it('ShareGPT: the first human turn is the prompt and the answer after it is kept; one-sided conversations are left out', async () => {
    const entries = await readDataset(fixture('sharegpt-small.json'));
    expect(entries.map((e) => [e.prompt.slice(0, 20), e.answer?.slice(0, 16), e.outputTokens])).toEqual([
      ['Explain how a lighth', 'A Fresnel lens b', null],
      ['Write a short poem a', 'The sea breathes', null],
    ]);
  });

  it('JSON Lines: prompts with their output length under any of its usual names; blank lines ignored', () => {
    const entries = parseDataset(readFileSync(fixture('prompts.jsonl'), 'utf8'), 'prompts.jsonl');
    expect(entries.map((e) => e.outputTokens)).toEqual([40, 64, null]);
    expect(entries[2].prompt).toBe('Name the planets in order.');
  });

  it.each([
    ['[{"conversations": [', 'bad.json is not valid JSON'],
    ['{"prompt": "a"}\nnot json', 'line 2 of bad.json is not JSON'],
    ['[{"question": "no prompt field"}]', 'bad.json holds no prompts: expected ShareGPT conversations'],
  ])('refuses %j with the reason', (text, message) => {
    expect(() => parseDataset(text, 'bad.json')).toThrow(message);
  });

  it("ShareGPT conversations keep every human turn in order, a conversation's later messages", async () => {
    const entries = await readDataset(join(ROOT, 'tests/fixtures/load/sharegpt-multiturn.json'));
    expect(entries.map((e) => e.turns.length)).toEqual([3, 2, 3]);
    expect(entries[2].turns).toEqual([
      'Name three things that make time to first token longer.',
      'Which of them does prefix caching help with?',
      'And queueing?',
    ]);
    expect(entries.every((e) => e.turns[0] === e.prompt)).toBe(true);
    const lines = parseDataset('{"prompt": "one", "output_len": 4}\n', 'p.jsonl');
    expect(lines[0].turns).toEqual(['one']);
  });

  it('a missing file is named', async () => {
    await expect(readDataset('/nonexistent/prompts.jsonl')).rejects.toThrow(
      '--dataset: cannot read /nonexistent/prompts.jsonl: ENOENT.',
    );
  });
});
