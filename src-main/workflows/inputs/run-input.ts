/**
 * The rules that turn a matrix's settings, as a person writes them, into a run configuration:
 * counts, durations, precision, prompt shapes, the shared prefix's fit (docs/method.md). Used by
 * the CLI's `run` and `sweep` and by the app's Run form; a value that cannot be used throws
 * InputError naming its flag.
 */
import type { RunConfigInput, TokenTargeting } from '../../engine/bench/types';
import { streamsCeilingReason } from '../../engine/bench';
import { parseTokenCount } from '#shared/report/format';
import { InputError } from './input-error';
import { parseLength, parseTokens } from './lengths';

/** A matrix's settings as written (text, as typed). */
export interface RunInput {
  contexts?: string;
  concurrency?: string;
  prefillContexts?: string;
  duration?: string;
  precision?: string;
  minDuration?: string;
  maxOutput?: string;
  outputLen?: string;
  sharedPrefix?: string;
  tokenTargeting?: string;
  kvBudget?: string;
  repeat?: string;
  simSpeed?: string;
  scoutDeadlineFloor?: string;
  scoutDeadlineCap?: string;
}

function parseCounts(flag: string, text: string, min: number, example: string): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const v = parseTokenCount(part);
    // A fraction is a count only with a K or M suffix (8.5k); "1.5" would be rounded silently.
    const fraction = /\.\d*\s*$/.test(part);
    if (v === null || v < min || fraction)
      throw new InputError(
        `${flag}: "${part.trim()}" is not a ${min > 0 ? 'positive ' : ''}whole number (e.g. ${flag} ${example}).`,
      );
    out.push(v);
  }
  if (out.length === 0)
    throw new InputError(`${flag}: give at least one value, comma-separated (e.g. ${flag} ${example}).`);
  return out;
}

export function positiveNumber(flag: string, text: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) throw new InputError(`${flag} must be a positive number, got "${text}".`);
  return v;
}

/** The run configuration from the settings (only what was given; the plan fills the method's defaults). */
export function runConfigFrom(f: RunInput): RunConfigInput {
  const c: RunConfigInput = {};
  if (f.contexts) c.contexts = parseCounts('--contexts', f.contexts, 0, '0,8k,32k');
  if (f.concurrency) c.concurrency = parseCounts('--concurrency', f.concurrency, 1, '1,4,16');
  const ceiling = c.concurrency && streamsCeilingReason(c.concurrency);
  if (ceiling) throw new InputError(ceiling);
  if (f.prefillContexts !== undefined)
    c.prefillContexts =
      f.prefillContexts.trim() === 'none' ? [] : parseCounts('--prefill-contexts', f.prefillContexts, 1, '8k,32k,128k');
  if (f.duration) c.secondsPerMeasurement = positiveNumber('--duration', f.duration);
  if (f.maxOutput) {
    const n = positiveNumber('--max-output', f.maxOutput);
    if (!Number.isInteger(n))
      throw new InputError(`--max-output must be a whole number of tokens, got "${f.maxOutput}".`);
    c.maxOutputTokens = n;
  }
  Object.assign(c, promptShapeFrom(f));
  if (f.tokenTargeting) {
    if (f.tokenTargeting !== 'exact' && f.tokenTargeting !== 'estimate')
      throw new InputError(`--token-targeting must be exact or estimate, got "${f.tokenTargeting}".`);
    c.tokenTargeting = f.tokenTargeting as TokenTargeting;
  }
  if (f.kvBudget) {
    const v = parseTokenCount(f.kvBudget);
    if (v === null || v <= 0) throw new InputError(`--kv-budget must be a number of tokens, got "${f.kvBudget}".`);
    c.kvBudgetTokens = v;
  }
  if (f.repeat) {
    const n = positiveNumber('--repeat', f.repeat);
    if (!Number.isInteger(n)) throw new InputError(`--repeat must be a whole number of times, got "${f.repeat}".`);
    c.repeat = n;
  }
  Object.assign(c, precisionFrom(f, c.secondsPerMeasurement));
  checkPrefixFits(c);
  if (f.simSpeed) c.simSpeed = positiveNumber('--sim-speed', f.simSpeed);
  if (f.scoutDeadlineFloor || f.scoutDeadlineCap) {
    c.scoutDeadline = {};
    if (f.scoutDeadlineFloor)
      c.scoutDeadline.floorSeconds = positiveNumber('--scout-deadline-floor', f.scoutDeadlineFloor);
    if (f.scoutDeadlineCap) c.scoutDeadline.capSeconds = positiveNumber('--scout-deadline-cap', f.scoutDeadlineCap);
  }
  return c;
}

/** --output-len and --shared-prefix (docs/method.md, "Prompt shapes"), read by the load command's own parsers. */
export function promptShapeFrom(
  f: Pick<RunInput, 'outputLen' | 'sharedPrefix' | 'maxOutput'>,
): Partial<RunConfigInput> {
  const out: Partial<RunConfigInput> = {};
  if (f.outputLen !== undefined) {
    if (f.maxOutput !== undefined)
      throw new InputError("--output-len sets each request's max_tokens: leave out --max-output.");
    out.outputLength = parseLength('--output-len', f.outputLen);
  }
  if (f.sharedPrefix !== undefined)
    out.sharedPrefixTokens = parseTokens('--shared-prefix', f.sharedPrefix, '--shared-prefix 4096');
  return out;
}

/** A shared prefix must leave every measured context room for its own part. */
export function checkPrefixFits(c: RunConfigInput): void {
  const prefix = c.sharedPrefixTokens ?? 0;
  const short = [...(c.contexts ?? []), ...(c.prefillContexts ?? [])].filter((x) => x > 0 && x <= prefix);
  if (short.length)
    throw new InputError(
      `--shared-prefix ${prefix} leaves no room for the context's own part at ${short.join(', ')} tokens: every non-zero context must be longer.`,
    );
}

/** "1%", "0.5 %" or "1": a precision in percent, as a share (0.01). */
export function parsePercent(flag: string, text: string): number {
  const v = Number(text.trim().replace(/\s*%$/, ''));
  if (!Number.isFinite(v) || v <= 0 || v >= 100)
    throw new InputError(`${flag} must be a percentage above 0 and below 100, e.g. ${flag} 1%; got "${text}".`);
  return v / 100;
}

/** --precision and --min-duration (docs/adaptive-precision.md); --duration stays the longest window. */
function precisionFrom(f: RunInput, maxSeconds: number | undefined): Partial<RunConfigInput> {
  if (f.minDuration && !f.precision)
    throw new InputError('--min-duration only applies with --precision (e.g. --precision 1% --min-duration 5).');
  if (!f.precision) return {};
  const out: Partial<RunConfigInput> = { precision: parsePercent('--precision', f.precision) };
  if (f.minDuration) {
    const min = positiveNumber('--min-duration', f.minDuration);
    if (maxSeconds !== undefined && min > maxSeconds)
      throw new InputError(
        `--min-duration (${min} s) is longer than --duration (${maxSeconds} s), the longest window.`,
      );
    out.minSecondsPerMeasurement = min;
  }
  return out;
}
