/**
 * Importing llm-inference-bench results (`benchmark_results.json`): metadata, a prefill map
 * from context to {ttft_seconds, tok_per_sec, prompt_tokens}, and a results list with one
 * entry per decode cell. Missing fields become "no value"; unknown fields are ignored.
 * Negative aggregate_tps values are the tool's codes: -1 skipped for KV capacity, -2 skipped
 * by the user, -3 loop, -4 error.
 */
import { basename } from 'node:path';
import { createSession } from '../../platform/session/create';
import type { CellStatus, DecodeCell, Gpu, LatencyStats, PrefillResult, Session } from '#shared/session/schema';
import { STATUSES } from '#shared/session/status-words';
import { type Result, fail, ok } from '#shared/result';
import { cellKey } from '#shared/cell-key';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The seed tool's document: an object with a results list (or a summary table) and metadata or prefill. */
export function looksLikeSeedJson(doc: unknown): doc is Json {
  if (!isObject(doc)) return false;
  const hasCells = Array.isArray(doc.results) || isObject(doc.summary_table);
  return hasCells && (isObject(doc.metadata) || isObject(doc.prefill));
}

const num = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v)
    ? v
    : typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v))
      ? Number(v)
      : null;
const nonNeg = (v: unknown): number | null => {
  const n = num(v);
  return n !== null && n >= 0 ? n : null;
};
const int = (v: unknown): number | null => {
  const n = nonNeg(v);
  return n === null ? null : Math.round(n);
};
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
const first = (o: Json, ...keys: string[]): unknown => keys.map((k) => o[k]).find((v) => v !== undefined && v !== null);

/** p50 plus whatever other statistics the tool kept; the missing ones repeat the median. */
function stats(o: Json, prefix: string): LatencyStats | null {
  const p50 = nonNeg(first(o, `${prefix}_p50`, `${prefix}_median`));
  const mean = nonNeg(first(o, `${prefix}_avg`, `${prefix}_mean`));
  const base = p50 ?? mean;
  if (base === null) return null;
  return {
    p50: base,
    p90: nonNeg(o[`${prefix}_p90`]) ?? base,
    p99: nonNeg(o[`${prefix}_p99`]) ?? base,
    mean: mean ?? base,
  };
}

const CODE_STATUS: Record<number, CellStatus> = {
  [-1]: 'over-capacity',
  [-2]: 'skipped',
  [-3]: 'looped',
  [-4]: 'error',
};

function statusOf(r: Json, total: number | null): CellStatus {
  if (total !== null && total < 0) return CODE_STATUS[Math.round(total)] ?? 'error';
  if (r.loop_detected === true) return 'looped';
  if (str(r.failure_reason) && !(total && total > 0)) return 'error';
  if (total === null || (total === 0 && (int(r.num_errors) ?? 0) > 0)) return 'error';
  if (r.capacity_limited === true || r.underfilled === true || r.warmup_timed_out === true) return 'queued';
  return 'valid';
}

function cellOf(r: Json, index: number, seconds: number | null): Result<DecodeCell> {
  const concurrency = int(r.concurrency);
  const context = int(first(r, 'context_tokens', 'context'));
  if (!concurrency || concurrency < 1)
    return fail(
      `results[${index}].concurrency: expected a whole number of at least 1, got ${JSON.stringify(r.concurrency)}`,
    );
  if (context === null)
    return fail(
      `results[${index}].context_tokens: expected a whole number of tokens, got ${JSON.stringify(r.context_tokens)}`,
    );
  const total = num(first(r, 'aggregate_tps'));
  const status = statusOf(r, total);
  const { hasFigure: figures, ran } = STATUSES[status];
  // Cells that never ran have no counts, whatever defaults the tool wrote.
  const output = ran ? int(first(r, 'client_output_tokens', 'total_tokens')) : null;
  return ok({
    context,
    concurrency,
    status,
    reason:
      str(r.failure_reason) ??
      (status === 'queued' && r.warmup_timed_out === true ? 'the warm-up wait timed out' : null),
    promptTokens: int(first(r, 'prompt_tokens', 'input_seq_len_avg')),
    totalTokensPerSecond: figures ? (total as number) : null,
    perRequestTokensPerSecond: figures ? (nonNeg(r.per_request_avg_tps) ?? (total as number) / concurrency) : null,
    ttft: figures ? stats(r, 'ttft') : null,
    timeBetweenTokens: figures ? stats(r, 'inter_token_latency') : null,
    avgActiveRequests: figures ? nonNeg(first(r, 'avg_running_reqs', 'effective_concurrency')) : null,
    completedRequests: ran ? int(first(r, 'completed_request_count', 'num_completed')) : null,
    outputTokens: output,
    windowSeconds: figures ? (nonNeg(r.measurement_seconds) ?? seconds ?? nonNeg(r.wall_time)) : null,
    readinessTimedOut: r.warmup_timed_out === true,
    maxWaitingSeen: int(r.max_queue_reqs),
    // The tool's own count of failed requests, shown beside the figure as "(N failed)".
    failedRequests: ran ? int(r.num_errors) : null,
    evidence: str(r.loop_excerpt)
      ? { loopExcerpt: str(r.loop_excerpt), loopPeriodChars: int(r.loop_period_chars), loopStream: null, logLines: [] }
      : null,
    requests: null,
    telemetry: null,
    startedAt: null,
    finishedAt: null,
  });
}

function prefillOf(map: Json): Result<PrefillResult[]> {
  const out: PrefillResult[] = [];
  for (const [key, v] of Object.entries(map)) {
    const context = int(key);
    if (context === null) return fail(`prefill: the key "${key}" is not a context length in tokens`);
    if (!isObject(v)) return fail(`prefill["${key}"]: expected an object with ttft_seconds and tok_per_sec`);
    const tps = nonNeg(first(v, 'tok_per_sec', 'tokens_per_sec'));
    const ttft = nonNeg(first(v, 'ttft_seconds', 'ttft'));
    out.push({
      context,
      status: tps && tps > 0 ? 'valid' : 'error',
      reason: str(v.failure_reason) ?? (tps && tps > 0 ? null : 'no prefill figure in the imported file'),
      promptTokens: int(v.prompt_tokens),
      ttftSeconds: ttft,
      tokensPerSecond: tps && tps > 0 ? tps : null,
      measuredAt: null,
    });
  }
  return ok(out.sort((a, b) => a.context - b.context));
}

const numberList = (v: unknown): number[] =>
  Array.isArray(v) ? v.map(int).filter((n): n is number => n !== null) : [];

/** The one GPU the file names, its vendor guessed from the name. */
function seedGpu(gpuName: string, vramGb: number | null): Gpu {
  return {
    index: 0,
    vendor: /nvidia|rtx|geforce|[ABH]\d{2,3}/i.test(gpuName)
      ? 'nvidia'
      : /radeon|instinct|MI\d/i.test(gpuName)
        ? 'amd'
        : 'other',
    name: gpuName,
    uuid: null,
    vramBytes: vramGb ? Math.round(vramGb * 1024 ** 3) : null,
    driver: null,
    cuda: null,
    computeCapability: null,
    powerLimitWatts: null,
    busId: null,
  };
}

/** Older versions leave KV-capacity skips out of results; put them back where the budget says so. */
function withSkippedCells(
  cells: DecodeCell[],
  grid: { contexts: number[]; concurrency: number[] },
  kvTokens: number,
  maxTokens: number,
  seconds: number | null,
): void {
  const have = new Set(cells.map(cellKey));
  for (const ctx of grid.contexts) {
    for (const c of grid.concurrency) {
      if (!have.has(cellKey({ context: ctx, concurrency: c })) && c * (ctx + maxTokens) > kvTokens) {
        const skipped = cellOf({ context_tokens: ctx, concurrency: c, aggregate_tps: -1 }, 0, seconds);
        if (skipped.ok) cells.push(skipped.data);
      }
    }
  }
}

/** Build a session from the parsed document; `file` names it in messages and the origin. */
export function importSeedJson(doc: Json, file = 'benchmark_results.json'): Result<Session> {
  const name = basename(file);
  const meta = isObject(doc.metadata) ? doc.metadata : {};
  const notes: string[] = [];
  const seconds = nonNeg(first(meta, 'duration_per_test', 'duration'));
  const maxTokens = int(first(meta, 'max_tokens', 'max_output_tokens'));
  const kvTokens = int(meta.max_total_tokens);

  const cells: DecodeCell[] = [];
  if (Array.isArray(doc.results)) {
    for (let i = 0; i < doc.results.length; i++) {
      const r = doc.results[i];
      if (!isObject(r)) return fail(`${name}: results[${i}] is not an object.`);
      const cell = cellOf(r, i, seconds);
      if (!cell.ok) return fail(`${name}: ${cell.error}.`);
      cells.push(cell.data);
    }
  } else if (isObject(doc.summary_table)) {
    // Only the summary: total tok/s per cell, nothing else.
    notes.push(
      'Imported from the summary table only: per-request figures, TTFT and time between tokens are not available.',
    );
    for (const [ctx, row] of Object.entries(doc.summary_table)) {
      if (!isObject(row)) continue;
      for (const [conc, tps] of Object.entries(row)) {
        const context = int(ctx);
        const concurrency = int(conc);
        const total = num(tps);
        if (context === null || !concurrency || total === null) continue;
        const cell = cellOf({ context_tokens: context, concurrency, aggregate_tps: total }, 0, seconds);
        if (cell.ok) cells.push({ ...cell.data, windowSeconds: null });
      }
    }
  }

  const prefillResult = isObject(doc.prefill) ? prefillOf(doc.prefill) : ok([] as PrefillResult[]);
  if (!prefillResult.ok) return fail(`${name}: ${prefillResult.error}.`);
  const prefill = prefillResult.data;

  let contexts = numberList(meta.context_lengths);
  let concurrency = numberList(meta.concurrency_levels).filter((c) => c > 0);
  if (contexts.length === 0) contexts = [...new Set(cells.map((c) => c.context))];
  if (concurrency.length === 0) concurrency = [...new Set(cells.map((c) => c.concurrency))];
  contexts.sort((a, b) => a - b);
  concurrency.sort((a, b) => a - b);

  if (kvTokens && maxTokens) withSkippedCells(cells, { contexts, concurrency }, kvTokens, maxTokens, seconds);
  cells.sort((a, b) => a.context - b.context || a.concurrency - b.concurrency);
  if (cells.length === 0 && prefill.length === 0)
    return fail(`${name}: the results list and the prefill map are both empty; there is nothing to import.`);

  const decodeMode = str(meta.decode_mode);
  if (decodeMode && !/duration|time/i.test(decodeMode))
    notes.push(`The source tool's decode mode was "${decodeMode}"; the report shows it as a fixed-duration test.`);
  const prefillMode = str(meta.prefill_mode);
  if (prefillMode && !/warm|decode/i.test(prefillMode))
    notes.push(`The source tool measured prefill as "${prefillMode}", not during decode warm-up.`);
  notes.push('Imported from llm-inference-bench: per-request timings and GPU telemetry are not available.');

  const version = str(meta.version);
  const server = str(meta.server);
  const model = str(first(meta, 'model_path', 'model'));
  const created = str(meta.timestamp);
  const createdAt =
    created && !Number.isNaN(Date.parse(created)) ? new Date(created).toISOString() : new Date().toISOString();
  const gpuName = str(first(meta, 'gpu', 'gpu_name', 'gpu_model'));
  const vramGb = nonNeg(first(meta, 'vram_gb', 'memory_gb'));
  const maxModelLen = int(first(meta, 'max_model_len', 'max_context_tokens'));

  return ok(
    createSession({
      createdAt,
      updatedAt: createdAt,
      simulated: false,
      origin: { kind: 'imported-seed-json', file: name },
      hardware: {
        gpuType: null,
        gpus: gpuName ? [seedGpu(gpuName, vramGb)] : [],
        cpu: null,
        ramBytes: null,
        os: null,
        notes: [],
      },
      engine: {
        name: str(meta.engine) ?? 'unknown',
        version: str(first(meta, 'engine_version', 'server_version')),
        commit: null,
        quantization: str(first(meta, 'quantization', 'dtype')),
        backend: null,
        build: null,
      },
      server: {
        kind: 'imported',
        url: server ? (/^https?:\/\//.test(server) ? server : `http://${server}`) : null,
        argv: [],
        env: {},
        display: '',
        model,
        servedModel: str(meta.model),
        revision: str(meta.revision),
        maxModelLen,
      },
      runConfig: {
        contexts,
        concurrency,
        prefillContexts: prefill.map((p) => p.context),
        secondsPerMeasurement: seconds ?? 30,
        maxOutputTokens: maxTokens && maxTokens > 0 ? maxTokens : 4096,
        decodeTestMode: 'fixed-duration',
        prefillMode: 'during-decode-warmup',
        tokenTargeting: 'estimate',
        benchmarkTool: `llm-inference-bench${version ? ` ${version.startsWith('v') ? version : `v${version}`}` : ''}`,
        runTag: 'imported',
      },
      kvBudget: kvTokens
        ? { tokens: kvTokens, source: 'imported', detail: 'max_total_tokens from llm-inference-bench' }
        : { tokens: null, source: 'imported', detail: 'not stated in the imported file' },
      prefill,
      cells,
      events: [
        {
          at: new Date().toISOString(),
          level: 'info',
          message: `Imported from the llm-inference-bench results ${name}.`,
        },
      ],
      checksUnavailable: notes,
    }),
  );
}
