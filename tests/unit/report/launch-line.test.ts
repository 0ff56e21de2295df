import { describe, expect, it } from 'vitest';
import { codeBlock, escapeMarkdown, unescapeMarkdown } from '../../../src-main/workflows/report/escape';
import { parseLaunchLine, splitShellWords } from '#shared/report/launch-flags';
import { commandLineOf, redactCommandLine } from '#shared/report/redact';

describe('launch lines', () => {
  it.each([
    ['vllm serve m --port 8000', ['vllm', 'serve', 'm', '--port', '8000']],
    [`a '{"image":10}' "b c" d\\ e`, ['a', '{"image":10}', 'b c', 'd e']],
    [`"$HOME/bin/vllm" serve 'it''s'`, ['$HOME/bin/vllm', 'serve', 'its']],
    [`x "say \\"hi\\""  ''`, ['x', 'say "hi"', '']],
  ])('splits %s as a shell would', (line, words) => {
    expect(splitShellWords(line)).toEqual(words);
  });

  it('reads env assignments, the model and the flags', () => {
    const p = parseLaunchLine(
      `env MAX_JOBS=2 A='x y' vllm serve org/M --max-model-len=8192 --enforce-eager --dtype bfloat16`,
    );
    expect(p.env).toEqual({ MAX_JOBS: '2', A: 'x y' });
    expect(p.argv[0]).toBe('vllm');
    expect(p.model).toBe('org/M');
    expect(Object.fromEntries(p.flags)).toEqual({
      '--max-model-len': '8192',
      '--enforce-eager': 'true',
      '--dtype': 'bfloat16',
    });
  });

  it.each([
    ['vllm serve m --api-key sk-123456789', 'vllm serve m --api-key <redacted>'],
    ['vllm serve m --api-key=sk-123456789 --port 1', 'vllm serve m --api-key=<redacted> --port 1'],
    [
      `HF_TOKEN=hf_x1y2z3 VLLM_API_KEY='a b' MAX_JOBS=2 vllm`,
      'HF_TOKEN=<redacted> VLLM_API_KEY=<redacted> MAX_JOBS=2 vllm',
    ],
    ['curl -H "Authorization: Bearer abcdefgh12345"', 'curl -H "Authorization: Bearer <redacted>"'],
    ['vllm serve m --api-key <redacted>', 'vllm serve m --api-key <redacted>'],
  ])('redacts secrets in %s', (line, want) => {
    expect(redactCommandLine(line)).toBe(want);
  });

  it('builds the one-line form from argv and env, quoted and redacted', () => {
    expect(
      commandLineOf(['vllm', 'serve', 'm', '--api-key', 'sk-secret99', '--limit-mm-per-prompt', '{"image":10}'], {
        HF_TOKEN: 'hf_abc123',
        MAX_JOBS: '2',
      }),
    ).toBe(`env HF_TOKEN=<redacted> MAX_JOBS=2 vllm serve m --api-key <redacted> --limit-mm-per-prompt '{"image":10}'`);
  });
});

describe('Markdown escaping', () => {
  it('round-trips through unescape and keeps code fences closed', () => {
    const s = 'a|b <c> & *d* `e` [f] ~g~ _h_ snake_case';
    expect(unescapeMarkdown(escapeMarkdown(s))).toBe(s);
    expect(escapeMarkdown('snake_case')).toBe('snake_case');
    const block = codeBlock('echo ```not the end```');
    expect(block.startsWith('````text\n')).toBe(true);
    expect(block.endsWith('\n````')).toBe(true);
  });
});
