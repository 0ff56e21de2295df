/**
 * Prompts from a file the user gives (`speedmatrix load --dataset FILE`, docs/load.md): ShareGPT-style
 * JSON (a list of conversations: the first human turn is the prompt, the first answer after it
 * sets the output length) or JSON Lines / a JSON list of `{"prompt": ..., "output_len": ...}`.
 * Nothing is downloaded; a file that cannot be used is refused with where and why.
 */
import { readFile } from 'node:fs/promises';

export interface DatasetEntry {
  prompt: string;
  /** Output tokens it asks for; null: the run's --output-len. */
  outputTokens: number | null;
  /** The answer's text where the file has one (ShareGPT), to size the output from. */
  answer: string | null;
  /** Every user message in order, `prompt` first: a conversation's turns (`--turns`). */
  turns: string[];
}

type Turn = { from?: unknown; role?: unknown; value?: unknown; content?: unknown };

const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
const outputOf = (o: Record<string, unknown>): number | null => {
  for (const key of ['output_len', 'output_tokens', 'max_tokens']) {
    const v = o[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return null;
};

/** One entry of either shape; null when it has no usable prompt (an empty or one-sided conversation). */
function entryOf(item: unknown): DatasetEntry | null {
  if (!item || typeof item !== 'object') return null;
  const o = item as Record<string, unknown>;
  const turns = (o.conversations ?? o.conversation) as Turn[] | undefined;
  if (Array.isArray(turns)) {
    const who = (t: Turn) => String(t.from ?? t.role ?? '');
    const at = turns.findIndex((t) => ['human', 'user'].includes(who(t)) && text(t.value ?? t.content));
    if (at < 0) return null;
    const answer = turns.slice(at + 1).find((t) => ['gpt', 'assistant', 'chatgpt', 'bard'].includes(who(t)));
    const asked = turns
      .slice(at)
      .filter((t) => ['human', 'user'].includes(who(t)))
      .map((t) => text(t.value ?? t.content))
      .filter((t): t is string => t !== null);
    return {
      prompt: asked[0],
      outputTokens: outputOf(o),
      answer: text(answer?.value ?? answer?.content),
      turns: asked,
    };
  }
  const prompt = text(o.prompt) ?? text(o.text);
  return prompt ? { prompt, outputTokens: outputOf(o), answer: null, turns: [prompt] } : null;
}

/** The entries of a dataset file's text; throws a message that names the file and the problem. */
export function parseDataset(content: string, file: string): DatasetEntry[] {
  const trimmed = content.trim();
  let items: unknown[];
  if (trimmed.startsWith('[')) {
    try {
      items = JSON.parse(trimmed) as unknown[];
    } catch (e) {
      throw new Error(`--dataset: ${file} is not valid JSON (${(e as Error).message}).`, { cause: e });
    }
  } else {
    items = trimmed.split(/\r?\n/).flatMap((line, i) => {
      if (line.trim() === '') return [];
      try {
        return [JSON.parse(line) as unknown];
      } catch {
        throw new Error(`--dataset: line ${i + 1} of ${file} is not JSON; a JSON Lines file has one object per line.`);
      }
    });
  }
  const entries = items.map(entryOf).filter((e): e is DatasetEntry => e !== null);
  if (entries.length === 0)
    throw new Error(
      `--dataset: ${file} holds no prompts: expected ShareGPT conversations ({"conversations": [{"from": "human", "value": ...}, ...]}) or objects with "prompt".`,
    );
  return entries;
}

export async function readDataset(file: string): Promise<DatasetEntry[]> {
  let content: string;
  try {
    content = await readFile(file, 'utf8');
  } catch (e) {
    throw new Error(`--dataset: cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}.`, {
      cause: e,
    });
  }
  return parseDataset(content, file);
}
