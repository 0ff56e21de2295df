/**
 * The requests of a load run (docs/load.md, "Prompt shapes"): each a prompt of its drawn length
 * that no other request shares beyond the optional shared prefix (a tag unique to the request
 * follows it), and an answer limit of its drawn output length. Lengths come from one calibration
 * through POST /tokenize (exact at the mean input length) and scale from there; each request's
 * real prompt tokens are recorded from usage. Without /tokenize, one usage count calibrates.
 */
import { rng } from '#shared/random';
import type { LoadConfig } from '#shared/session/schema-load';
import { type BenchHttp, maxTokensFields, postJson } from './http';
import { lengthSampler, meanLength } from './load-arrivals';
import type { DatasetEntry } from './load-dataset';
import type { LoadRequest } from './load-rate';
import { TRACE_BLOCK_TOKENS, type TraceEntry } from './load-trace';
import { buildMessages, countTokens, fillerText, promptTag } from './prompts';

type Messages = ReturnType<typeof buildMessages>;

/** A prompt as one text, for the completions endpoint. */
const asText = (messages: Messages): string => messages.map((m) => m.content).join('\n\n');

/** Prompt tokens of a request as the endpoint will count them. */
async function countFor(http: BenchHttp, endpoint: LoadConfig['endpoint'], messages: Messages): Promise<number> {
  if (endpoint === 'chat' && http.tokenize !== null) return countTokens(http, messages);
  if (endpoint === 'completions' && http.tokenize !== null) {
    const r = await postJson<{ count?: number }>(http, '/tokenize', { model: http.model, prompt: asText(messages) });
    if (typeof r.count === 'number') return r.count;
  }
  const r = await postJson<{ usage?: { prompt_tokens?: number } }>(http, PATHS[endpoint], {
    model: http.model,
    ...(endpoint === 'chat' ? { messages } : { prompt: asText(messages) }),
    ...maxTokensFields(1),
    stream: false,
  });
  const n = r.usage?.prompt_tokens;
  if (typeof n !== 'number') throw new Error('The server counted no prompt tokens (no /tokenize, no usage).');
  return n;
}

const PATHS = { chat: '/v1/chat/completions', completions: '/v1/completions' } as const;

/** Characters of filler per token and the tokens around the filler, measured on this server. */
interface Density {
  charsPerToken: number;
  overhead: number;
}

/** The tag of request i: always the same width, so the same number of tokens on any tokenizer that splits digits. */
const requestTag = (runTag: string, i: number) => promptTag(runTag, `R${String(i % 1_000_000).padStart(6, '0')}`);

/** The messages of one request: the shared prefix, its own tag, then filler up to its length. */
function messagesFor(prefix: string, tag: string, fillerChars: number): Messages {
  const m = buildMessages(tag, fillerChars);
  if (prefix) m[0] = { ...m[0], content: `${prefix}\n\n${m[0].content}` };
  return m;
}

async function measureDensity(http: BenchHttp, cfg: LoadConfig, prefix: string, tag: string): Promise<Density> {
  const overhead = await countFor(http, cfg.endpoint, messagesFor(prefix, tag, 1));
  const probeChars = Math.max(4_000, Math.round((meanLength(cfg.inputLength) - overhead) * 4));
  const probe = await countFor(http, cfg.endpoint, messagesFor(prefix, tag, probeChars));
  return { charsPerToken: probeChars / Math.max(1, probe - overhead), overhead };
}

/** A shared prefix's text (load runs and the matrix): filler of about `tokens` tokens, sized with the server's own count. */
export async function sharedPrefixText(
  http: BenchHttp,
  tokens: number,
  endpoint: LoadConfig['endpoint'] = 'chat',
): Promise<string> {
  if (tokens <= 0) return '';
  const probe = fillerText(tokens * 4);
  const n = await countFor(http, endpoint, [{ role: 'user', content: probe }]);
  const base = await countFor(http, endpoint, [{ role: 'user', content: '' }]);
  return fillerText(Math.round((tokens * probe.length) / Math.max(1, n - base)));
}

/**
 * A source of requests for the run: each call gives the next one. `exact` is true when the mean
 * input length was checked with the server's own count.
 */
export async function loadRequests(
  http: BenchHttp,
  cfg: LoadConfig,
  runTag: string,
  dataset: readonly DatasetEntry[] | null = null,
  trace: readonly TraceEntry[] | null = null,
): Promise<{ next: () => LoadRequest; note: string | null }> {
  const prefix = await sharedPrefixText(http, cfg.sharedPrefixTokens, cfg.endpoint);
  const density = await measureDensity(http, cfg, prefix, requestTag(runTag, 0));
  const input = lengthSampler(cfg.inputLength, cfg.seed);
  const output = lengthSampler(cfg.outputLength, cfg.seed + 1);
  const body = (messages: Messages, maxTokens: number) =>
    JSON.stringify({
      model: http.model,
      ...(cfg.endpoint === 'chat' ? { messages } : { prompt: asText(messages) }),
      ...maxTokensFields(maxTokens),
      stream: true,
      ignore_eos: cfg.ignoreEos,
      stream_options: { include_usage: true, continuous_usage_stats: true },
    });
  const path = PATHS[cfg.endpoint];
  const sent = (messages: Messages, inputTokens: number, maxTokens: number): Sent => ({
    body: body(messages, maxTokens),
    path,
    inputTokens,
    messages,
  });
  if (dataset) {
    const opening = datasetOpenings(dataset, cfg.seed, density, output, sent);
    const next = cfg.conversation ? conversations(cfg.conversation, opening, sent, output) : () => opening().first;
    return { next, note: null };
  }
  if (trace) return { next: fromTrace(trace, cfg.trace?.speed ?? 1, runTag, density, body, path), note: null };
  let i = 0;
  const tooShort = density.overhead >= meanLength(cfg.inputLength);
  const first = (): Sent => {
    const want = input();
    const chars = Math.max(0, Math.round((want - density.overhead) * density.charsPerToken));
    return sent(messagesFor(prefix, requestTag(runTag, ++i), chars), Math.max(want, density.overhead), output());
  };
  // A generated conversation's later messages: each of a drawn length, with its own tag.
  const ask = (): Ask => {
    const tokens = input();
    return { text: `${requestTag(runTag, ++i)} ${fillerText(Math.round(tokens * density.charsPerToken))}`, tokens };
  };
  const next = cfg.conversation
    ? conversations(cfg.conversation, () => ({ first: first(), ask }), sent, output)
    : first;
  const note = tooShort
    ? `The prompt's fixed part is ${density.overhead} tokens, more than the input length asked for: prompts are ${density.overhead} tokens.`
    : null;
  return { next, note };
}

/**
 * Requests from the user's prompts, in a seeded shuffled order, round again when all were sent
 * (a prompt sent again may then hit the prefix cache). The output length is the entry's own, else
 * its answer's length in this server's tokens (from the measured density), else --output-len.
 * In a conversation, an entry's later human turns are its later messages, and it ends with them.
 */
function datasetOpenings(
  entries: readonly DatasetEntry[],
  seed: number,
  density: Density,
  output: () => number,
  sent: (messages: Messages, inputTokens: number, maxTokens: number) => Sent,
): () => Opening {
  const order = shuffled(entries.length, seed);
  const tokensOf = (text: string) => Math.round(text.length / density.charsPerToken);
  let i = 0;
  return () => {
    const e = entries[order[i++ % order.length]];
    const out =
      e.outputTokens ?? (e.answer ? Math.max(1, Math.round(e.answer.length / density.charsPerToken)) : output());
    const first = sent([{ role: 'user', content: e.prompt }], tokensOf(e.prompt), out);
    const later = e.turns.slice(1);
    return {
      first,
      ask: (turn) => (turn - 2 < later.length ? { text: later[turn - 2], tokens: tokensOf(later[turn - 2]) } : null),
    };
  };
}

/**
 * Requests of a replayed trace, in time order, each due at its own time. A prompt is its hash
 * ids' blocks of text, each worth 512 tokens and opening with its id (and the run's tag, so no
 * earlier run's cache serves it), cut to the request's input length: two requests that start with
 * the same ids start with the same text, and share nothing after their first different id.
 * Blocks past the ids the line lists are the request's own.
 */
function fromTrace(
  entries: readonly TraceEntry[],
  speed: number,
  runTag: string,
  density: Density,
  body: (messages: Messages, maxTokens: number) => string,
  path: string,
): () => LoadRequest {
  const blockChars = Math.round(TRACE_BLOCK_TOKENS * density.charsPerToken);
  const block = (id: string) => {
    const head = `${promptTag(runTag, `block ${id}`)} `;
    return head + fillerText(blockChars - head.length);
  };
  let n = 0;
  return () => {
    const e = entries[n % entries.length];
    const own = n++;
    const count = Math.ceil(e.inputTokens / TRACE_BLOCK_TOKENS);
    const ids = Array.from({ length: count }, (_, k) => (k < e.hashIds.length ? String(e.hashIds[k]) : `R${own}.${k}`));
    const chars = Math.max(1, Math.round((e.inputTokens - density.overhead) * density.charsPerToken));
    const text = ids.map(block).join('').slice(0, chars);
    return {
      body: body([{ role: 'user', content: text }], e.outputTokens),
      path,
      inputTokens: e.inputTokens,
      dueSeconds: e.atSeconds / speed,
    };
  };
}

/** A request with the messages it sends (a conversation's next turn adds to them). */
type Sent = LoadRequest & { messages: Messages };

/** A conversation's next user message and its tokens, or null when the conversation has no more. */
type Ask = { text: string; tokens: number } | null;

/** A conversation as its source starts it: its first request, and its message for each later turn (2, 3, ...). */
interface Opening {
  first: Sent;
  ask: (turn: number) => Ask;
}

/**
 * Conversations (docs/load.md, "Conversations"): each call starts one; each turn after the first
 * sends the whole history, the answers as the server wrote them, plus its new message, until
 * --turns or the source's messages run out.
 */
function conversations(
  conv: NonNullable<LoadConfig['conversation']>,
  open: () => Opening,
  sent: (messages: Messages, inputTokens: number, maxTokens: number) => Sent,
  output: () => number,
): () => LoadRequest {
  const follow = ({ messages, ...req }: Sent, turn: number, ask: Opening['ask']): LoadRequest => {
    const more = turn < conv.turns ? ask(turn + 1) : null;
    if (!more) return { ...req, turn };
    const next = (answer: string) => {
      const history: Messages = [...messages, { role: 'assistant', content: answer }];
      const request = sent([...history, { role: 'user', content: more.text }], req.inputTokens + more.tokens, output());
      return follow(request, turn + 1, ask);
    };
    return { ...req, turn, followUp: { afterSeconds: conv.thinkSeconds, next } };
  };
  return () => {
    const { first, ask } = open();
    return follow(first, 1, ask);
  };
}

/** 0..n-1 in a seeded random order (Fisher-Yates). */
function shuffled(n: number, seed: number): number[] {
  const uniform = rng(seed);
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(uniform() * (i + 1));
    [order[i], order[j]] = [order[j], order[i]];
  }
  return order;
}
