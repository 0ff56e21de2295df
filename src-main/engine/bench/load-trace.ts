/**
 * A trace to replay (`speedmatrix load --trace FILE`, docs/load.md "Replaying a trace"), in the
 * Mooncake format as published: JSON Lines of `{"timestamp": ms, "input_length": tokens,
 * "output_length": tokens, "hash_ids": [...]}`, where each hash id names one block of 512 prompt
 * tokens and equal ids at the start of two prompts mean those prompts share that prefix.
 * A file that cannot be used is refused with the line and the field.
 */
import { readFile } from 'node:fs/promises';
import type { LoadConfig } from '#shared/session/schema-load';

/** Prompt tokens per hash id in a Mooncake trace. */
export const TRACE_BLOCK_TOKENS = 512;

export interface TraceEntry {
  /** Seconds after the trace's first request (at speed 1). */
  atSeconds: number;
  inputTokens: number;
  outputTokens: number;
  /** The prompt's blocks in order; empty when the line has none (the prompt then shares nothing). */
  hashIds: number[];
}

const FORMAT = '{"timestamp": ms, "input_length": tokens, "output_length": tokens, "hash_ids": [ids]}';

const isWhole = (v: unknown, min: number): v is number => Number.isInteger(v) && (v as number) >= min;

/** One line's entry (its time still absolute, in ms); throws naming the line and the field. */
function entryOf(line: string, at: string): TraceEntry {
  let o: unknown;
  try {
    o = JSON.parse(line);
  } catch {
    throw new Error(`${at} is not JSON; a trace has one object per line: ${FORMAT}.`);
  }
  if (!o || typeof o !== 'object' || Array.isArray(o)) throw new Error(`${at} is not an object: ${FORMAT}.`);
  const r = o as Record<string, unknown>;
  const ms = Number.isFinite(r.timestamp) ? (r.timestamp as number) : -1;
  if (ms < 0) throw new Error(`${at}: "timestamp" must be milliseconds, 0 or more (${FORMAT}).`);
  for (const key of ['input_length', 'output_length'])
    if (!isWhole(r[key], 1)) throw new Error(`${at}: "${key}" must be a whole number of tokens, 1 or more.`);
  const ids = r.hash_ids ?? [];
  if (!Array.isArray(ids) || !ids.every((id) => isWhole(id, 0)))
    throw new Error(`${at}: "hash_ids" must be a list of whole numbers (one per ${TRACE_BLOCK_TOKENS}-token block).`);
  const input = r.input_length as number;
  if (ids.length > Math.ceil(input / TRACE_BLOCK_TOKENS))
    throw new Error(
      `${at}: ${ids.length} hash ids are more blocks than ${input} input tokens fill (${TRACE_BLOCK_TOKENS} tokens each).`,
    );
  return { atSeconds: ms, inputTokens: input, outputTokens: r.output_length as number, hashIds: ids as number[] };
}

/** The requests of a trace file's text, in time order, times in seconds from the first; throws naming the file. */
export function parseTrace(content: string, file: string): TraceEntry[] {
  const entries: TraceEntry[] = [];
  content.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() !== '') entries.push(entryOf(line, `--trace: line ${i + 1} of ${file}`));
  });
  if (entries.length === 0) throw new Error(`--trace: ${file} holds no requests; expected JSON Lines of ${FORMAT}.`);
  entries.sort((a, b) => a.atSeconds - b.atSeconds);
  const first = entries[0].atSeconds;
  return entries.map((e) => ({ ...e, atSeconds: (e.atSeconds - first) / 1000 }));
}

export async function readTrace(file: string): Promise<TraceEntry[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (e) {
    throw new Error(`--trace: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`, {
      cause: e,
    });
  }
  return parseTrace(content, file);
}

/** Server seconds from the replay's start to the last request's arrival, at `speed` times the trace's pace. */
export const traceSpanSeconds = (entries: readonly TraceEntry[], speed: number): number =>
  entries.length ? entries[entries.length - 1].atSeconds / speed : 0;

/** A replay's configuration with what its file holds: how many requests, over how long; the window is the whole trace. */
export function withTrace(config: LoadConfig, entries: readonly TraceEntry[]): LoadConfig {
  if (!config.trace) return config;
  const spanSeconds = traceSpanSeconds(entries, config.trace.speed);
  return { ...config, durationSeconds: spanSeconds, trace: { ...config.trace, requests: entries.length, spanSeconds } };
}
