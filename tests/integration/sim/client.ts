/** A small SSE client for the simulator tests: every `data:` event with the time it arrived. */
import { request } from 'node:http';

export interface SseEvent {
  data: string;
  json?: Record<string, any>;
  at: number;
}

export interface StreamResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  events: SseEvent[];
  /** The raw body (for non-SSE answers). */
  body: string;
}

/** POST JSON and collect the whole answer (SSE events parsed). `abortAfterEvents` closes the socket early. */
export function post(
  url: string,
  body: unknown,
  opts: { headers?: Record<string, string>; abortAfterEvents?: number } = {},
): Promise<StreamResult> {
  return new Promise((resolve, reject) => {
    const payload = JSON.stringify(body);
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...opts.headers } },
      (res) => {
        const events: SseEvent[] = [];
        let buf = '';
        let raw = '';
        const done = () => resolve({ status: res.statusCode ?? 0, headers: res.headers, events, body: raw });
        res.setEncoding('utf8');
        res.on('data', (d: string) => {
          raw += d;
          buf += d;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            if (!block.startsWith('data: ')) continue;
            const data = block.slice(6);
            let json: Record<string, any> | undefined;
            try {
              json = data === '[DONE]' ? undefined : JSON.parse(data);
            } catch {
              json = undefined;
            }
            events.push({ data, json, at: performance.timeOrigin + performance.now() });
            if (opts.abortAfterEvents !== undefined && events.length >= opts.abortAfterEvents) {
              req.destroy();
              done();
            }
          }
        });
        res.on('end', done);
        res.on('error', () => done());
      },
    );
    req.on('error', (e) => (opts.abortAfterEvents !== undefined ? undefined : reject(e)));
    req.end(payload);
  });
}

export async function getJson(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(url, { headers });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

/** Parse Prometheus text into name{labels} -> value. */
export async function scrape(url: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const sp = line.lastIndexOf(' ');
    out.set(line.slice(0, sp), Number(line.slice(sp + 1)));
  }
  return out;
}

/** The value of a series, by name, ignoring labels unless given as a substring. */
export function metric(m: Map<string, number>, name: string, labelPart = ''): number | undefined {
  for (const [k, v] of m) {
    const base = k.split('{')[0];
    if (base === name && k.includes(labelPart)) return v;
  }
  return undefined;
}

export const chatBody = (content: string, extra: Record<string, unknown> = {}) => ({
  messages: [{ role: 'user', content }],
  stream: true,
  stream_options: { include_usage: true, continuous_usage_stats: true },
  ...extra,
});

/** Exactly n tokens of the simulator's tokenizer: n words of a space and three letters (one token each). */
export function filler(n: number, seed = 0): string {
  const a = 'abcdefghijklmnopqrstuvwxyz';
  let s = '';
  for (let i = 0; i < n; i++) {
    const k = i * 7 + seed * 131;
    s += ` ${a[k % 26]}${a[Math.floor(k / 26) % 26]}${a[Math.floor(k / 676) % 26]}`;
  }
  return s;
}

/**
 * The loop detector of docs/METHOD.md: every 256 characters, the last 64 are an anchor; for each earlier copy
 * (period up to 32,768), a tail repeating exactly at least 4 whole times over at least 4,096 characters is a loop
 * (periods of only whitespace excluded).
 */
export function detectLoop(text: string): boolean {
  for (let end = 256; end <= text.length; end += 256) {
    const s = text.slice(0, end);
    const anchor = s.slice(-64);
    for (
      let idx = s.lastIndexOf(anchor, s.length - 65);
      idx >= 0;
      idx = idx === 0 ? -1 : s.lastIndexOf(anchor, idx - 1)
    ) {
      const period = s.length - 64 - idx;
      if (period > 32768) break;
      const unit = s.slice(-period);
      if (unit.trim() === '') continue;
      let reps = 1;
      while (
        (reps + 1) * period <= s.length &&
        s.slice(s.length - (reps + 1) * period, s.length - reps * period) === unit
      )
        reps++;
      if (reps >= 4 && reps * period >= 4096) return true;
    }
  }
  return false;
}
