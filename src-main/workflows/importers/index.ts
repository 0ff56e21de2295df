/**
 * Import: turn another tool's results into a session. The kind is decided by the content,
 * never by the file name; anything else is refused with what was expected.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { type Result, fail } from '#shared/result';
import { decodeText, stripBom } from '../../platform/runtime/text';
import { MAX_SESSION_BYTES } from '../../platform/session/read';
import { SESSION_FORMAT, type Session } from '#shared/session/schema';
import { parseReportText, looksLikeReportText } from './report-text';
import { importSeedJson, looksLikeSeedJson } from './seed-json';
import { importVllmBench, looksLikeVllmBench } from './vllm-bench';
import { importAiperf, looksLikeAiperf } from './aiperf';
import { importGuidellm, looksLikeGuidellm } from './guidellm';

export const IMPORT_EXPECTED =
  'SpeedMatrix imports llm-inference-bench results (benchmark_results.json: a JSON object with "metadata", "prefill" and "results"), vLLM bench serve --save-result JSON, AIPerf’s profile_export_aiperf.json, GuideLLM’s benchmarks.json, or the text of a speed test matrix report (with its "All measurements" table).';

/** Import bytes or text already in memory (File > Open, drag and drop, tests). */
export function importText(input: Uint8Array | string, file = 'file'): Result<Session> {
  const name = basename(file);
  let text: string;
  if (typeof input === 'string') text = stripBom(input);
  else {
    const decoded = decodeText(input);
    if (!decoded.ok) return fail(`${name} is not text (${decoded.error}). ${IMPORT_EXPECTED}`);
    text = decoded.text;
  }
  const trimmed = text.trim();
  if (trimmed === '') return fail(`${name} is empty. ${IMPORT_EXPECTED}`);

  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let doc: unknown;
    try {
      doc = JSON.parse(trimmed);
    } catch (e) {
      const truncated = /end of (JSON )?input|Unterminated/i.test(String((e as Error).message));
      return fail(
        `${name} is not valid JSON (${(e as Error).message})${truncated ? '; the file looks truncated' : ''}. ${IMPORT_EXPECTED}`,
      );
    }
    if (typeof doc === 'object' && doc !== null && (doc as { format?: unknown }).format === SESSION_FORMAT) {
      return fail(`${name} is already a SpeedMatrix session; open it directly instead of importing it.`);
    }
    if (looksLikeSeedJson(doc)) return importSeedJson(doc, name);
    if (looksLikeVllmBench(doc)) return importVllmBench(doc, name);
    if (looksLikeAiperf(doc)) return importAiperf(doc, name);
    if (looksLikeGuidellm(doc)) return importGuidellm(doc, name);
    return fail(
      `${name} is JSON but not llm-inference-bench results: it has no "results" list with "metadata" or "prefill" beside it. ${IMPORT_EXPECTED}`,
    );
  }
  if (looksLikeReportText(text)) return parseReportText(text, name);
  return fail(`${name} is not a file SpeedMatrix can import. ${IMPORT_EXPECTED}`);
}

export async function importFile(path: string): Promise<Result<Session>> {
  const name = basename(path);
  try {
    const info = await stat(path);
    if (info.isDirectory()) return fail(`Cannot import ${name}: it is a folder, not a file.`);
    if (info.size > MAX_SESSION_BYTES)
      return fail(
        `Cannot import ${name}: it is ${(info.size / 1024 / 1024).toFixed(1)} MB, larger than any results file. ${IMPORT_EXPECTED}`,
      );
    const fh = await open(path, 'r');
    try {
      return importText(await fh.readFile(), name);
    } finally {
      await fh.close();
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    const why =
      err.code === 'ENOENT'
        ? 'no such file'
        : err.code === 'EACCES' || err.code === 'EPERM'
          ? 'permission denied'
          : err.message;
    return fail(`Cannot import ${name}: ${why}.`);
  }
}
