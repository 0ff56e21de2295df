import { describe, expect, it } from 'vitest';
import { ChatStreamParser, type ChatStreamSink } from '../../../src-main/engine/bench/sse';

type Ev =
  ['chunk', number, number, string | null, string | null] | ['done'] | ['error', string] | ['malformed', string];

function collect(): { sink: ChatStreamSink; events: Ev[] } {
  const events: Ev[] = [];
  return {
    events,
    sink: {
      onChunk: (c, p, content, reasoning) => events.push(['chunk', c, p, content, reasoning]),
      onDone: () => events.push(['done']),
      onStreamError: (m) => events.push(['error', m]),
      onMalformed: (p) => events.push(['malformed', p]),
    },
  };
}

// Chunks exactly as vLLM streams them with include_usage + continuous_usage_stats (VLLM.md).
const role =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"fara","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":15,"total_tokens":15,"completion_tokens":0}}';
const tok = (text: string, n: number) =>
  `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"fara","choices":[{"index":0,"delta":{"content":${JSON.stringify(text)}},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":15,"total_tokens":${15 + n},"completion_tokens":${n}}}`;
const usage =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"fara","choices":[],"usage":{"prompt_tokens":15,"total_tokens":18,"completion_tokens":3}}';

const stream =
  [role, tok('Hello', 1), tok(' "world"\n', 2), tok('é€', 3), usage].map((d) => `data: ${d}\n\n`).join('') +
  'data: [DONE]\n\n';

describe('ChatStreamParser', () => {
  it('reads vLLM chunks: usage counters, delta text with escapes and UTF-8, [DONE]', () => {
    const { sink, events } = collect();
    const p = new ChatStreamParser(sink);
    p.push(Buffer.from(stream));
    p.end();
    expect(events).toEqual([
      ['chunk', 0, 15, '', null],
      ['chunk', 1, 15, 'Hello', null],
      ['chunk', 2, 15, ' "world"\n', null],
      ['chunk', 3, 15, 'é€', null],
      ['chunk', 3, 15, null, null],
      ['done'],
    ]);
  });

  it('gives the same events however the bytes are split (every split point, inside multi-byte characters)', () => {
    const bytes = Buffer.from(stream);
    const whole = collect();
    const p0 = new ChatStreamParser(whole.sink);
    p0.push(bytes);
    p0.end();
    for (let cut = 1; cut < bytes.length; cut += 7) {
      const { sink, events } = collect();
      const p = new ChatStreamParser(sink);
      p.push(bytes.subarray(0, cut));
      p.push(bytes.subarray(cut));
      p.end();
      expect(events).toEqual(whole.events);
    }
  });

  it('gives the same events fed a byte at a time, as plain Uint8Arrays, with empty pushes between, LF or CRLF', () => {
    const whole = collect();
    const p0 = new ChatStreamParser(whole.sink);
    p0.push(Buffer.from(stream));
    p0.end();
    for (const text of [stream, stream.replaceAll('\n', '\r\n')]) {
      const bytes = Buffer.from(text);
      const { sink, events } = collect();
      const p = new ChatStreamParser(sink);
      for (let i = 0; i < bytes.length; i++) {
        p.push(new Uint8Array(bytes.subarray(i, i + 1)));
        p.push(new Uint8Array(0));
      }
      p.end();
      expect(events).toEqual(whole.events);
    }
  });

  it('tolerates CRLF, no space after data:, comments, event/id lines and a last event without a blank line', () => {
    const { sink, events } = collect();
    const p = new ChatStreamParser(sink);
    p.push(Buffer.from(`: keep-alive\r\nevent: message\r\nid: 7\r\ndata:${tok('a', 1)}\r\n\r\ndata: [DONE]`));
    p.end();
    expect(events).toEqual([['chunk', 1, 15, 'a', null], ['done']]);
  });

  it('reads reasoning deltas (reasoning_content and reasoning) separately from content', () => {
    const { sink, events } = collect();
    const p = new ChatStreamParser(sink);
    p.push(
      Buffer.from(
        `data: {"choices":[{"delta":{"reasoning_content":"think"}}]}\n\ndata: {"choices":[{"delta":{"reasoning":"more","content":null}}]}\n\n`,
      ),
    );
    expect(events).toEqual([
      ['chunk', -1, -1, null, 'think'],
      ['chunk', -1, -1, null, 'more'],
    ]);
  });

  it('reports an error event in both body shapes, and a malformed chunk', () => {
    const { sink, events } = collect();
    const p = new ChatStreamParser(sink);
    p.push(Buffer.from('data: {"error":{"message":"engine died","type":"InternalServerError","code":500}}\n\n'));
    p.push(Buffer.from('data: {"object":"error","message":"old shape","type":"BadRequestError","code":400}\n\n'));
    p.push(Buffer.from('data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"x"\n\n'));
    expect(events).toEqual([
      ['error', 'engine died'],
      ['error', 'old shape'],
      ['malformed', '{"id":"chatcmpl-1","choices":[{"delta":{"content":"x"'],
    ]);
  });

  it('falls back to JSON.parse for unusual but valid chunks (completions API text)', () => {
    const { sink, events } = collect();
    const p = new ChatStreamParser(sink);
    p.push(Buffer.from('data: {"id":"cmpl-1","object":"text_completion","choices":[{"index":0,"text":"hi"}]}\n\n'));
    // "choices" is present, so the fast path reads it; content is absent -> null, no crash.
    expect(events.length).toBe(1);
    expect(events[0][0]).toBe('chunk');
  });
});
