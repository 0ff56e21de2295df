/**
 * vLLM's human-readable integers (vllm/utils/argparse_utils.py human_readable_int, since v0.8.4):
 * lower-case k/m/g/t are decimal (32k = 32,000), upper-case K/M/G/T binary (32K = 32,768), and a
 * binary suffix takes no decimals. The form, the typed command line and the simulator all read
 * sizes with this one rule, so the tokens sent are the tokens vLLM will use.
 */

const DECIMAL: Record<string, number> = { k: 1e3, m: 1e6, g: 1e9, t: 1e12 };
const BINARY: Record<string, number> = { K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** `32768`, `32k`, `25.6k`, `32K` -> tokens; undefined when vLLM would refuse it. */
export function parseHumanInt(text: string): number | undefined {
  const t = text.trim();
  if (/^\d+$/.test(t)) return Number(t);
  const m = /^(\d+(?:\.\d+)?)([kKmMgGtT])$/.exec(t);
  if (!m) return undefined;
  const [, number, suffix] = m;
  if (suffix in DECIMAL) return Math.trunc(Number(number) * DECIMAL[suffix]);
  return number.includes('.') ? undefined : Number(number) * BINARY[suffix];
}

/** `--max-model-len`: a human-readable integer, or `-1` / `auto` (fit to memory, since v0.14). */
export function parseMaxModelLenArg(text: string): number | 'auto' | undefined {
  const t = text.trim();
  if (t === '-1' || t.toLowerCase() === 'auto') return 'auto';
  const n = parseHumanInt(t);
  return n !== undefined && n > 0 ? n : undefined;
}
