/**
 * A fast, tolerant parser for OpenAI-style streamed chat completions (Server-Sent Events).
 *
 * Speed matters: at C=128 the client must absorb hundreds of thousands of tokens a second
 * on a small CPU, so chunks are not JSON.parsed. The parser scans each event's text for the
 * few keys it needs (usage counters, the content and reasoning deltas, an error) with
 * indexOf from known positions, parses integers in place, and only slices out delta text
 * (needed by the loop detector). Anything it cannot read this way falls back to JSON.parse,
 * so an odd but valid chunk still counts, and a chunk that is not JSON is reported.
 *
 * Tolerant of: CRLF or LF line ends, `data:` with or without a space, comment lines
 * (`: ping`), `event:`/`id:` lines, several data lines in one event, events split anywhere
 * across network chunks (including inside a multi-byte character).
 */

/** Receives what the parser read; called synchronously from push(). */
export interface ChatStreamSink {
  /**
   * One chunk of the stream. `completionTokens` is the cumulative usage counter (-1 when the
   * chunk has none); `content`/`reasoning` are the delta texts ('' or null when absent).
   */
  onChunk(completionTokens: number, promptTokens: number, content: string | null, reasoning: string | null): void;
  /** `data: [DONE]` */
  onDone(): void;
  /** An error event sent inside the stream (HTTP status was already 200). */
  onStreamError(message: string): void;
  /** A data payload that is not a JSON object. */
  onMalformed(payload: string): void;
}

const K_COMPLETION = '"completion_tokens":';
const K_PROMPT = '"prompt_tokens":';
const K_CONTENT = '"content":';
const K_REASONING_CONTENT = '"reasoning_content":';
const K_REASONING = '"reasoning":';
const K_REASONING_PREFIX = '"reasoning';
const K_ERROR = '"error":';
const K_CHOICES = '"choices":';
const K_USAGE = '"usage":';

export class ChatStreamParser {
  /**
   * Bytes after the last line end seen: the start of a line not yet ended. Kept as bytes, copied
   * out of the network chunk: a string sliced from the chunk's text would keep all of it alive
   * until the next chunk, for every stream. A line end (byte 10) never falls inside a multi-byte
   * character, so whole lines decode alone.
   */
  private rest: Buffer[] = [];
  /** Data lines of the event being read (usually exactly one). */
  private data: string | null = null;

  constructor(private readonly sink: ChatStreamSink) {}

  push(bytes: Uint8Array): void {
    const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const last = buf.lastIndexOf(10);
    if (last < 0) {
      this.rest.push(Buffer.from(buf));
      return;
    }
    let from = 0;
    if (this.rest.length > 0) {
      // Finish the line split across chunks on its own: decoding it with the whole chunk would copy the chunk.
      const nl = buf.indexOf(10);
      this.rest.push(buf.subarray(0, nl));
      this.lineOf(Buffer.concat(this.rest).toString('utf8'));
      this.rest = [];
      from = nl + 1;
    }
    const text = buf.toString('utf8', from, last + 1);
    let pos = 0;
    const n = text.length;
    while (pos < n) {
      const nl = text.indexOf('\n', pos);
      let end = nl;
      if (end > pos && text.charCodeAt(end - 1) === 13) end--;
      this.line(text, pos, end);
      pos = nl + 1;
    }
    if (last + 1 < buf.length) this.rest.push(Buffer.from(buf.subarray(last + 1)));
  }

  /** The stream ended: dispatch a last event that had no blank line after it. */
  end(): void {
    const tail = Buffer.concat(this.rest).toString('utf8');
    this.rest = [];
    if (tail.length) this.lineOf(tail);
    this.dispatch();
  }

  /** One whole line without its line end (a CR before it is dropped). */
  private lineOf(text: string): void {
    this.line(text, 0, text.charCodeAt(text.length - 1) === 13 ? text.length - 1 : text.length);
  }

  private line(text: string, start: number, end: number): void {
    if (start === end) {
      this.dispatch();
      return;
    }
    // "data:" = 100 97 116 97 58
    if (
      end - start >= 5 &&
      text.charCodeAt(start) === 100 &&
      text.charCodeAt(start + 1) === 97 &&
      text.charCodeAt(start + 2) === 116 &&
      text.charCodeAt(start + 3) === 97 &&
      text.charCodeAt(start + 4) === 58
    ) {
      let s = start + 5;
      if (s < end && text.charCodeAt(s) === 32) s++;
      const payload = text.slice(s, end);
      if (this.data === null) this.data = payload;
      else {
        this.data += `\n${payload}`;
      }
    }
    // Comments (":"), "event:", "id:", "retry:" and anything else carry nothing we need.
  }

  private dispatch(): void {
    const p = this.data;
    this.data = null;
    if (p === null) return;
    this.payload(p);
  }

  private payload(p: string): void {
    let a = 0;
    let b = p.length;
    while (a < b && p.charCodeAt(a) <= 32) a++;
    while (b > a && p.charCodeAt(b - 1) <= 32) b--;
    if (a === b) return;
    if (p.charCodeAt(a) === 91 /* [ */ && p.startsWith('[DONE]', a)) {
      this.sink.onDone();
      return;
    }
    if (p.charCodeAt(a) !== 123 /* { */ || p.charCodeAt(b - 1) !== 125 /* } */) {
      this.sink.onMalformed(p);
      return;
    }
    // One pass over the quotes finds the first of each key the common chunk needs: every key starts
    // with a quote, so testing the keys at each quote in turn finds what indexOf from `a` would,
    // in one scan of the chunk instead of one per key.
    let choicesAt = -1;
    let usageAt = -1;
    let contentAt = -1;
    let reasoningAt = -1;
    for (let q = p.indexOf('"', a); q >= 0; q = p.indexOf('"', q + 1)) {
      const c = p.charCodeAt(q + 1);
      if (c === 99 /* c */) {
        if (choicesAt < 0 && p.startsWith(K_CHOICES, q)) choicesAt = q;
        else if (contentAt < 0 && p.startsWith(K_CONTENT, q)) contentAt = q;
      } else if (c === 117 /* u */) {
        if (usageAt < 0 && p.startsWith(K_USAGE, q)) usageAt = q;
      } else if (c === 114 /* r */ && reasoningAt < 0 && p.startsWith(K_REASONING_PREFIX, q)) reasoningAt = q;
    }
    const hasChoices = choicesAt >= 0;
    if (!hasChoices && usageAt < 0) {
      this.slowPath(p);
      return;
    }
    // An error key at the top level only occurs in error events (delta text escapes its quotes).
    if (!hasChoices && p.indexOf(K_ERROR, a) >= 0) {
      this.slowPath(p);
      return;
    }
    let completion = -1;
    let prompt = -1;
    if (usageAt >= 0) {
      completion = intAfter(p, K_COMPLETION, usageAt);
      prompt = intAfter(p, K_PROMPT, usageAt);
    }
    const content = contentAt < 0 ? null : stringAfter(p, K_CONTENT, contentAt);
    let reasoning: string | null | undefined = null;
    // Both reasoning keys start with this prefix: a chunk without it has neither.
    if (reasoningAt >= 0) {
      reasoning = stringAfter(p, K_REASONING_CONTENT, a);
      if (reasoning === null) reasoning = stringAfter(p, K_REASONING, a);
    }
    if (content === undefined || reasoning === undefined) {
      this.slowPath(p); // an escape we could not read in place
      return;
    }
    this.sink.onChunk(completion, prompt, content, reasoning);
  }

  /** Rare chunks: errors, unusual shapes. Parse properly. */
  private slowPath(p: string): void {
    let doc: unknown;
    try {
      doc = JSON.parse(p);
    } catch {
      this.sink.onMalformed(p);
      return;
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      this.sink.onMalformed(p);
      return;
    }
    const d = doc as Record<string, unknown>;
    if (d.error !== undefined || d.object === 'error') {
      this.sink.onStreamError(errorMessageOf(d));
      return;
    }
    const usage = d.usage as Record<string, unknown> | undefined;
    const choices = Array.isArray(d.choices) ? (d.choices as Array<Record<string, unknown>>) : [];
    const delta = (choices[0]?.delta ?? {}) as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : null);
    const int = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : -1);
    this.sink.onChunk(
      int(usage?.completion_tokens),
      int(usage?.prompt_tokens),
      str(delta.content) ?? str(choices[0]?.text),
      str(delta.reasoning_content) ?? str(delta.reasoning),
    );
  }
}

/** The message of an error body in any of vLLM's shapes (nested, flat, plain string). */
export function errorMessageOf(d: Record<string, unknown>): string {
  const e = d.error;
  if (typeof e === 'string') return e;
  if (e && typeof e === 'object') {
    const m = (e as Record<string, unknown>).message;
    if (typeof m === 'string') return m;
    return JSON.stringify(e);
  }
  if (typeof d.message === 'string') return d.message;
  if (typeof d.detail === 'string') return d.detail;
  return JSON.stringify(d);
}

/** The integer after `key` (searching from `from`), or -1. No allocation. */
function intAfter(p: string, key: string, from: number): number {
  const k = p.indexOf(key, from);
  if (k < 0) return -1;
  let i = k + key.length;
  while (p.charCodeAt(i) === 32) i++;
  let v = 0;
  let digits = 0;
  for (;;) {
    const c = p.charCodeAt(i);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
    digits++;
    i++;
  }
  return digits ? v : -1;
}

/**
 * The JSON string value after `key`, decoded: null when the key is absent or not a string,
 * undefined when the value cannot be read in place (unterminated or a bad escape).
 */
function stringAfter(p: string, key: string, from: number): string | null | undefined {
  const k = p.indexOf(key, from);
  if (k < 0) return null;
  let i = k + key.length;
  while (p.charCodeAt(i) === 32) i++;
  if (p.charCodeAt(i) !== 34 /* " */) return null; // null or a non-string value
  const start = i + 1;
  let j = start;
  for (;;) {
    const q = p.indexOf('"', j);
    if (q < 0) return undefined;
    // Count backslashes before the quote: an odd number escapes it.
    let bs = 0;
    for (let t = q - 1; t >= start && p.charCodeAt(t) === 92; t--) bs++;
    if (bs % 2 === 0) {
      const raw = p.slice(start, q);
      // Look for an escape only inside the value: the rest of the chunk may be long.
      let slash = start;
      while (slash < q && p.charCodeAt(slash) !== 92) slash++;
      if (slash === q) return raw;
      try {
        return JSON.parse(`"${raw}"`) as string;
      } catch {
        return undefined;
      }
    }
    j = q + 1;
  }
}
