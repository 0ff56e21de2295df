/**
 * Prompts of an exact size (docs/method.md): ordinary prose filler inside a chat, a tag unique to
 * the run and the context first (so no earlier cache is reused), and a final turn that asks
 * for a very long, varied article. The filler length is found by a bracketed search on
 * POST /tokenize until the prompt is within max(64 tokens, 0.5%) below the target; without
 * /tokenize, characters per token are calibrated with one `max_tokens: 1` request at 8K.
 * Calibration is cached per server and model (in memory, and for /tokenize in the OS temp
 * folder, where it only seeds the search: every prompt is still counted exactly).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BenchHttp, maxTokensFields, postJson } from './http';

interface ChatMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
}

const SENTENCES = [
  'The harbour town woke slowly, its fishing boats rocking against the stone quay while gulls argued over the nets.',
  'In the archive, a clerk sorted letters from the last century by the colour of their wax seals.',
  'Engineers measured the bridge every spring, noting how the steel had crept a few millimetres in the winter cold.',
  'A botanist walked the ridge at dawn, counting the orchids that had opened since the rain.',
  'The orchestra rehearsed the second movement twice, because the cellos kept rushing the quiet passage.',
  'Farmers along the river traded seed varieties the way their grandparents had traded stories.',
  'At the observatory, the night shift logged a faint comet that nobody had predicted.',
  'The bakery on the corner sold out of rye bread before eight, as it did every Saturday.',
  'Cartographers argued for a week about where exactly the marsh ended and the lake began.',
  'A retired teacher kept a notebook of every bird that visited the feeder outside her kitchen window.',
  'The city council debated the new tram line late into the evening, with maps spread across the table.',
  'Glassblowers in the old quarter still shaped their vases by eye, without moulds or measurements.',
  'Travellers crossing the mountain pass stopped at the hut to dry their boots by the iron stove.',
  'The museum restored a tapestry whose threads had faded from crimson to a pale, dusty rose.',
  'Students in the laboratory repeated the experiment until the numbers finally agreed.',
  'A lighthouse keeper wrote that the fog that autumn was the thickest she had seen in thirty years.',
];
const FILLER_UNIT = `${SENTENCES.join(' ')} `;

const FINAL_ASK =
  'Now write a very long, original article of at least 5,000 words about the history of navigation, ' +
  'from the earliest sailors to satellite positioning. Cover many different eras, places, people, instruments ' +
  'and ideas; tell stories, compare methods, explain the mathematics, and describe everyday life at sea. ' +
  'Use many sections with varied headings, never repeat a sentence or a paragraph, and keep going without summarising.';

/** Filler text of exactly `chars` characters. */
export function fillerText(chars: number): string {
  if (chars <= 0) return '';
  const reps = Math.ceil(chars / FILLER_UNIT.length);
  return FILLER_UNIT.repeat(reps).slice(0, chars);
}

export const promptTag = (runTag: string, label: string): string => `[RUN ${runTag} ${label}]`;

/** The chat for a context: no filler at context 0, else a reference document of `fillerChars`. */
export function buildMessages(tag: string, fillerChars: number): ChatMessage[] {
  if (fillerChars <= 0) return [{ role: 'user', content: `${tag} ${FINAL_ASK}` }];
  return [
    {
      role: 'user',
      content: `${tag} Here is a reference document. Read it; afterwards I will ask you to write something.\n\n${fillerText(fillerChars)}`,
    },
    { role: 'assistant', content: 'I have read the document. What would you like me to write?' },
    { role: 'user', content: FINAL_ASK },
  ];
}

export interface SizedPrompt {
  messages: ChatMessage[];
  /** Prompt tokens as counted by /tokenize (exact) or estimated. */
  tokens: number;
  target: number;
  exact: boolean;
}

/** Characters per filler token and the fixed token overhead of the chat around the filler. */
interface Calibration {
  charsPerToken: number;
  overheadTokens: number;
}

export const tolerance = (target: number): number => Math.max(64, Math.floor(target * 0.005));

const memoryCache = new Map<string, Calibration>();
const cacheFile = (): string => join(tmpdir(), 'speedmatrix-calibration.json');
const cacheKey = (http: BenchHttp, mode: string): string => `${http.baseUrl}|${http.model}|${mode}`;

/**
 * A shared prefix (docs/method.md, "Prompt shapes") goes first, before the run's tag; a calibration made with it
 * is kept apart, since its fixed part is larger.
 */
const prefixed = (tag: string, prefix: string): string => (prefix ? `${prefix} ${tag}` : tag);
const prefixMode = (mode: string, prefix: string): string => (prefix ? `${mode}+prefix${prefix.length}` : mode);

function loadCalibration(key: string): Calibration | null {
  const hit = memoryCache.get(key);
  if (hit) return hit;
  try {
    if (!existsSync(cacheFile())) return null;
    const all = JSON.parse(readFileSync(cacheFile(), 'utf8')) as Record<string, Calibration>;
    const c = all[key];
    if (c && c.charsPerToken > 0 && Number.isFinite(c.overheadTokens)) {
      memoryCache.set(key, c);
      return c;
    }
  } catch {
    // a broken cache file only costs a few extra /tokenize calls
  }
  return null;
}

/** `persist` false keeps it in memory only (estimates are not verified later, so never trust an old one). */
function saveCalibration(key: string, c: Calibration, persist = true): void {
  memoryCache.set(key, c);
  if (!persist) return;
  try {
    let all: Record<string, Calibration> = {};
    if (existsSync(cacheFile())) all = JSON.parse(readFileSync(cacheFile(), 'utf8')) as Record<string, Calibration>;
    all[key] = c;
    writeFileSync(cacheFile(), JSON.stringify(all));
  } catch {
    // the cache is an optimisation; the in-memory copy still serves this run
  }
}

export async function countTokens(http: BenchHttp, messages: ChatMessage[]): Promise<number> {
  if (http.tokenize === 'prompt') return (await countContents(http, messages)) + (await chatOverhead(http, messages));
  const r = await postJson<{ count?: number; tokens?: unknown[] }>(http, '/tokenize', { model: http.model, messages });
  const n = typeof r.count === 'number' ? r.count : Array.isArray(r.tokens) ? r.tokens.length : Number.NaN;
  if (!Number.isFinite(n)) throw new Error('/tokenize answered without a token count.');
  return n;
}

/** The tokens of each message's text, counted apart (no merges across messages), without special tokens. */
async function countContents(http: BenchHttp, messages: ChatMessage[]): Promise<number> {
  const r = await postJson<{ count?: number[] }>(http, '/tokenize', {
    model: http.model,
    prompt: messages.map((m) => m.content),
    add_special_tokens: false,
  });
  if (!Array.isArray(r.count) || r.count.length !== messages.length || !r.count.every(Number.isFinite))
    throw new Error('/tokenize answered without a token count for each message.');
  return r.count.reduce((a, b) => a + b, 0);
}

const overheadCache = new Map<string, number>();

/**
 * The tokens a chat template adds around messages of these roles, for a /tokenize that counts only
 * plain text (SGLang 0.5.4-0.5.11): a one-token chat's `usage.prompt_tokens` less its texts' own
 * tokens. The template's tokens do not depend on the texts, so this is measured once per chat shape.
 */
async function chatOverhead(http: BenchHttp, messages: ChatMessage[]): Promise<number> {
  const key = `${cacheKey(http, 'template')}|${messages.map((m) => m.role).join(',')}`;
  const have = overheadCache.get(key);
  if (have !== undefined) return have;
  const probe = messages.map((m) => ({ role: m.role, content: 'Hello' }));
  const r = await postJson<{ usage?: { prompt_tokens?: number } }>(http, '/v1/chat/completions', {
    model: http.model,
    messages: probe,
    ...maxTokensFields(1),
    stream: false,
  });
  const total = r.usage?.prompt_tokens;
  if (typeof total !== 'number' || total <= 0)
    throw new Error("The server did not report usage.prompt_tokens, so the chat template's tokens cannot be counted.");
  const overhead = total - (await countContents(http, probe));
  overheadCache.set(key, overhead);
  return overhead;
}

/**
 * A prompt whose token count is within tolerance at or below `target`, found through
 * /tokenize: interpolation inside a shrinking [lo, hi] bracket of filler characters.
 */
export async function exactPrompt(http: BenchHttp, ownTag: string, target: number, prefix = ''): Promise<SizedPrompt> {
  const tag = prefixed(ownTag, prefix);
  if (target <= 0) {
    const messages = buildMessages(tag, 0);
    return { messages, tokens: await countTokens(http, messages), target, exact: true };
  }
  const key = cacheKey(http, prefixMode('tokenize', prefix));
  let cal = loadCalibration(key);
  if (!cal) {
    const overheadTokens = await countTokens(http, buildMessages(tag, 1));
    const probeChars = 40_000;
    const probe = await countTokens(http, buildMessages(tag, probeChars));
    cal = { charsPerToken: probeChars / Math.max(1, probe - overheadTokens), overheadTokens };
    saveCalibration(key, cal);
  }
  const tol = tolerance(target);
  const aim = target - tol / 2;
  let lo = 0; // chars known to give <= target (0 filler always does, or nothing will)
  let hi = Number.POSITIVE_INFINITY; // chars known to give > target
  let chars = Math.max(1, Math.round((aim - cal.overheadTokens) * cal.charsPerToken));
  let best: SizedPrompt | null = null;
  for (let i = 0; i < 40; i++) {
    const messages = buildMessages(tag, chars);
    const tokens = await countTokens(http, messages);
    if (tokens <= target) {
      lo = Math.max(lo, chars);
      if (!best || tokens > best.tokens) best = { messages, tokens, target, exact: true };
      if (tokens >= target - tol) break;
    } else hi = Math.min(hi, chars);
    if (hi - lo <= 1) break;
    // Interpolate with the measured density, then keep the guess strictly inside the bracket.
    const density = (tokens - cal.overheadTokens) / chars;
    let next = Math.round(chars + (aim - tokens) / Math.max(density, 1e-6));
    if (!(next > lo && next < hi)) next = Number.isFinite(hi) ? Math.floor((lo + hi) / 2) : Math.max(lo + 1, chars * 2);
    chars = next;
  }
  if (!best) throw new Error(`Could not build a prompt of ${target} tokens: even the shortest one is longer.`);
  if (best.tokens < target - tol)
    throw new Error(
      `Could not size a prompt within ${tol} tokens of ${target}: the closest had ${best.tokens} tokens.`,
    );
  const density =
    (best.tokens - cal.overheadTokens) / Math.max(1, best.messages.length > 1 ? fillerLength(best.messages) : 1);
  if (density > 0) saveCalibration(key, { charsPerToken: 1 / density, overheadTokens: cal.overheadTokens });
  return best;
}

function fillerLength(messages: ChatMessage[]): number {
  const first = messages[0].content;
  const at = first.indexOf('\n\n');
  return at < 0 ? 0 : first.length - at - 2;
}

/**
 * Estimate mode: characters per token from one `max_tokens: 1` request at about 8K tokens
 * (usage.prompt_tokens), then scaled. The run records the real prompt tokens of every request.
 */
async function estimatedPrompt(http: BenchHttp, ownTag: string, target: number, prefix = ''): Promise<SizedPrompt> {
  const tag = prefixed(ownTag, prefix);
  const key = cacheKey(http, prefixMode('estimate', prefix));
  let cal = memoryCache.get(key) ?? null;
  if (!cal) {
    const probeChars = 8192 * 4;
    const messages = buildMessages(tag, probeChars);
    const r = await postJson<{ usage?: { prompt_tokens?: number } }>(http, '/v1/chat/completions', {
      model: http.model,
      messages,
      ...maxTokensFields(1),
      stream: false,
    });
    const pt = r.usage?.prompt_tokens;
    if (typeof pt !== 'number' || pt <= 0)
      throw new Error('The server did not report usage.prompt_tokens, so prompt sizes cannot be estimated.');
    const totalChars = messages.reduce((n, m) => n + m.content.length, 0);
    const charsPerToken = totalChars / pt;
    cal = { charsPerToken, overheadTokens: Math.round((totalChars - probeChars) / charsPerToken) };
    saveCalibration(key, cal, false);
  }
  const chars =
    target <= 0
      ? 0
      : Math.max(1, Math.round((target - tolerance(target) / 2 - cal.overheadTokens) * cal.charsPerToken));
  const messages = buildMessages(tag, chars);
  return { messages, tokens: Math.round(cal.overheadTokens + chars / cal.charsPerToken), target, exact: false };
}

/**
 * When /tokenize fails at one size (a server limit, an error), scale the density measured at
 * smaller sizes instead; without any, fall back to estimate mode.
 */
export async function extrapolatedPrompt(
  http: BenchHttp,
  ownTag: string,
  target: number,
  prefix = '',
): Promise<SizedPrompt> {
  const tag = prefixed(ownTag, prefix);
  const cal = loadCalibration(cacheKey(http, prefixMode('tokenize', prefix)));
  if (!cal) return estimatedPrompt(http, ownTag, target, prefix);
  const chars =
    target <= 0
      ? 0
      : Math.max(1, Math.round((target - tolerance(target) / 2 - cal.overheadTokens) * cal.charsPerToken));
  return {
    messages: buildMessages(tag, chars),
    tokens: Math.round(cal.overheadTokens + chars / cal.charsPerToken),
    target,
    exact: false,
  };
}

export function sizedPrompt(
  http: BenchHttp,
  mode: 'exact' | 'estimate',
  tag: string,
  target: number,
  prefix = '',
): Promise<SizedPrompt> {
  return mode === 'exact' ? exactPrompt(http, tag, target, prefix) : estimatedPrompt(http, tag, target, prefix);
}
