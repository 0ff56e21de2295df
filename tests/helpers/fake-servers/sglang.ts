/**
 * SGLang 0.5.10 as launched with `--model Qwen/Qwen3-8B --served-model-name qwen3 --dp-size 2
 * --enable-priority-scheduling`, replaying the bodies in tests/fixtures/sglang (its README says
 * where in SGLang's source each comes from). Its /tokenize takes only `prompt` (0.5.4-0.5.11) and
 * counts with the simulator's documented tokenizer; chat usage counts the same text in its template.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens, encodeChat } from '../../../src-main/engine/sim/tokenizer';
import { ROOT } from '../paths';
import { serveRoutes, type FakeEngine } from './engines';

export const SGLANG_FIXTURES = join(ROOT, 'tests/fixtures/sglang');
export const sglangFixture = (name: string): string => readFileSync(join(SGLANG_FIXTURES, name), 'utf8');

export interface FakeSglang extends FakeEngine {
  /** Every route asked, as "METHOD /path", in order. */
  asked: string[];
}

/**
 * The server, with `serverInfo` as its /server_info body (default: the fixture's); `before056`
 * leaves out /server_info, which SGLang added in 0.5.6 (only /get_server_info answers).
 */
export async function sglang0510({
  serverInfo = JSON.parse(sglangFixture('v0.5.10-server-info-dp2.json')) as unknown,
  before056 = false,
} = {}): Promise<FakeSglang> {
  const asked: string[] = [];
  const seen =
    <T>(route: string, answer: (body: string) => T) =>
    (body: string): T => {
      asked.push(route);
      return answer(body);
    };
  const engine = await serveRoutes({
    '/v1/models': seen('GET /v1/models', () => ({
      json: JSON.parse(sglangFixture('v0.5.10-models-served-name.json')),
    })),
    '/health': seen('GET /health', () => ({ text: '' })),
    '/server_info': seen('GET /server_info', () =>
      before056 ? { status: 404, json: { detail: 'Not Found' } } : { json: serverInfo },
    ),
    '/get_server_info': seen('GET /get_server_info', () => ({ json: serverInfo })),
    '/metrics': seen('GET /metrics', () => ({ text: sglangFixture('v0.5.10-metrics-priority-dp2.txt') })),
    'POST /tokenize': seen('POST /tokenize', tokenize),
    'POST /v1/chat/completions': seen('POST /v1/chat/completions', chatUsage),
  });
  return { ...engine, asked } satisfies FakeSglang;
}

/** TokenizeRequest of 0.5.4-0.5.11: `prompt` (a string or a list) is required; anything else is HTTP 400. */
function tokenize(body: string) {
  const req = JSON.parse(body) as { prompt?: unknown };
  if (typeof req.prompt === 'string') {
    const n = countTokens(req.prompt);
    return { json: { tokens: Array.from({ length: n }, (_, i) => i), count: n, max_model_len: 40960 } };
  }
  if (Array.isArray(req.prompt)) {
    const counts = req.prompt.map((p) => countTokens(String(p)));
    return {
      json: { tokens: counts.map((n) => Array.from({ length: n }, (_, i) => i)), count: counts, max_model_len: 40960 },
    };
  }
  return { status: 400, json: JSON.parse(sglangFixture('v0.5.10-tokenize-messages-400.json')) };
}

/** A non-streamed chat completion of one token, with the usage SGLang reports. */
function chatUsage(body: string) {
  const req = JSON.parse(body) as { messages: { role: string; content: string }[] };
  const promptTokens = encodeChat(req.messages).length;
  return {
    json: {
      id: 'c1',
      object: 'chat.completion',
      created: 1764590000,
      model: 'qwen3',
      choices: [{ index: 0, message: { role: 'assistant', content: 'The' }, finish_reason: 'length' }],
      usage: { prompt_tokens: promptTokens, completion_tokens: 1, total_tokens: promptTokens + 1 },
    },
  };
}
