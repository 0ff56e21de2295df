/**
 * The simulator's tokenizer: deterministic, reversible and documented (README "Tokenizer"), so
 * tests can build prompts of an exact length. Rules:
 *  - Text splits into pieces: a single optional leading space plus a run of ASCII letters; one digit;
 *    one other character (punctuation, newline, any non-ASCII character, a space not before a letter).
 *  - A letter piece is cut into tokens of at most 4 characters (" hello" -> " hel", "lo").
 *  - Chat messages are rendered as `<|im_start|>ROLE\nCONTENT<|im_end|>\n` per message, then
 *    `<|im_start|>assistant\n`; the two markers are one token each.
 * Token ids: a piece of 1..4 ASCII characters is its characters as base-128 digits (so ids decode
 * back); any other single character is 300,000,000 + its code point; the markers are 151644/151645.
 */

const IM_START = 151644;
const IM_END = 151645;
const WIDE = 300_000_000;

const PIECE = /( ?[A-Za-z]+)|([\s\S])/gu;

/** Split text into token strings. */
export function pieces(text: string): string[] {
  const out: string[] = [];
  PIECE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PIECE.exec(text))) {
    const word = m[1];
    if (word) {
      for (let i = 0; i < word.length; i += 4) out.push(word.slice(i, i + 4));
    } else {
      out.push(m[2]);
    }
  }
  return out;
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);

/**
 * Token ids of `text`, appended to `out` (no spreading: prompts can hold hundreds of thousands of tokens).
 * The same pieces as `pieces()`, found by a char loop: it runs on the API-server path, so it must be fast.
 */
export function encode(text: string, out: number[] = []): number[] {
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    const word = isLetter(c) || (c === 32 && i + 1 < n && isLetter(text.charCodeAt(i + 1)));
    if (!word) {
      const cp = text.codePointAt(i)!;
      out.push(cp < 128 ? cp : WIDE + cp);
      i += cp > 0xffff ? 2 : 1;
      continue;
    }
    let end = i + 1;
    while (end < n && isLetter(text.charCodeAt(end))) end++;
    for (let k = i; k < end; k += 4) {
      const e = Math.min(k + 4, end);
      let id = 0;
      for (let q = k; q < e; q++) id = id * 128 + text.charCodeAt(q);
      out.push(id);
    }
    i = end;
  }
  return out;
}

/** Count without building arrays (the hot path for usage of long prompts). */
export function countTokens(text: string): number {
  let n = 0;
  PIECE.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = PIECE.exec(text))) n += m[1] ? Math.ceil(m[1].length / 4) : 1;
  return n;
}

export function decode(ids: number[]): string {
  let s = '';
  for (const id of ids) {
    if (id === IM_START) s += '<|im_start|>';
    else if (id === IM_END) s += '<|im_end|>';
    else if (id >= WIDE) s += String.fromCodePoint(id - WIDE);
    else if (id < 128) s += String.fromCharCode(id);
    else {
      let chars = '';
      for (let v = id; v > 0; v = Math.floor(v / 128)) chars = String.fromCharCode(v % 128) + chars;
      s += chars;
    }
  }
  return s;
}

export interface ChatMessage {
  role: string;
  content: unknown;
}

/** Text of a message's content: a string, or the text parts of a list (images count as a fixed token block). */
function contentText(content: unknown): { text: string; extraTokens: number } {
  if (typeof content === 'string') return { text: content, extraTokens: 0 };
  if (!Array.isArray(content)) return { text: '', extraTokens: 0 };
  let text = '';
  let extra = 0;
  for (const part of content) {
    if (part && typeof part === 'object' && typeof (part as { text?: unknown }).text === 'string')
      text += (part as { text: string }).text;
    else if (part && typeof part === 'object' && /image/.test(String((part as { type?: unknown }).type))) extra += 256;
  }
  return { text, extraTokens: extra };
}

/** Token ids of a chat rendered with the template above (generation prompt included). */
export function encodeChat(messages: ChatMessage[]): number[] {
  const ids: number[] = [];
  for (const m of messages) {
    const { text, extraTokens } = contentText(m.content);
    ids.push(IM_START);
    encode(`${m.role}\n`, ids);
    encode(text, ids);
    for (let i = 0; i < extraTokens; i++) ids.push(WIDE + 0xfffc);
    ids.push(IM_END);
    encode('\n', ids);
  }
  ids.push(IM_START);
  encode('assistant\n', ids);
  return ids;
}

/** Validate the messages array of a chat request; returns an error sentence or undefined. */
export function checkMessages(messages: unknown): string | undefined {
  if (!Array.isArray(messages) || messages.length === 0)
    return 'messages: Field required (a non-empty list of {role, content})';
  for (const [i, m] of messages.entries()) {
    if (!m || typeof m !== 'object' || typeof (m as ChatMessage).role !== 'string')
      return `messages.${i}.role: Field required`;
  }
  return undefined;
}
