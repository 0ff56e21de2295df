/**
 * What the importers of other load tools' results share (docs/load.md, "The peers' files"): one
 * pass's figures become a load session of one result, read by the tool's own field names.
 */
import { createSession } from '../../platform/session/create';
import type { LoadConfig, LoadRateResult } from '#shared/session/schema-load';
import type { Session } from '#shared/session/schema';

export type Json = Record<string, unknown>;

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

interface ImportedPass {
  origin: Session['origin'];
  model: string | null;
  /** The engine the file names; "unknown" when it names only its own client backend. */
  engineName: string;
  /** The tool that measured, with its version when the file states one: "AIPerf 0.6.0". */
  tool: string;
  /** When the file says it measured (ISO 8601), else null: the session is then dated by the import. */
  measuredAt: string | null;
  result: LoadRateResult;
  /** What the file says of its workload; the rest is the result's own (lengths from its means). */
  config: Partial<LoadConfig>;
}

/**
 * A file's own time as ISO 8601: "20261201-101500" (vLLM's `date`), "2026-12-01T10:30:00.000000"
 * (AIPerf's `start_time`) or epoch seconds (GuideLLM's `start_time`). A time without a zone is read
 * as UTC (the tools write the client's clock without one); null when it is no time.
 */
export function fileTime(v: unknown): string | null {
  if (typeof v === 'number') return Number.isFinite(v) && v > 0 ? new Date(v * 1000).toISOString() : null;
  if (typeof v !== 'string') return null;
  const compact = /^(\d{4})(\d{2})(\d{2})-(\d{2})(\d{2})(\d{2})$/.exec(v.trim());
  const text = compact
    ? `${compact[1]}-${compact[2]}-${compact[3]}T${compact[4]}:${compact[5]}:${compact[6]}`
    : v.trim();
  const zoned = /(Z|[+-]\d{2}:?\d{2})$/i.test(text) ? text : `${text}Z`;
  const d = new Date(zoned);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

export function importedLoadSession(p: ImportedPass): Session {
  const r = p.result;
  const tokens = (v: number | null) => ({ kind: 'fixed' as const, tokens: Math.max(1, Math.round(v ?? 1)) });
  const session = createSession({
    origin: p.origin,
    engine: { name: p.engineName, version: null, commit: null, quantization: null, backend: null, build: null },
    server: {
      kind: 'imported',
      url: null,
      argv: [],
      env: {},
      display: '',
      model: p.model,
      servedModel: p.model,
      revision: null,
      maxModelLen: null,
    },
    load: {
      config: {
        rates: r.targetRate === null ? [] : [r.targetRate],
        sweep: null,
        arrivals: { kind: 'poisson' },
        maxInFlight: null,
        durationSeconds: r.windowSeconds,
        warmupSeconds: 0,
        inputLength: tokens(r.meanInputTokens),
        outputLength: tokens(r.meanOutputTokens),
        sharedPrefixTokens: 0,
        endpoint: 'chat',
        ignoreEos: false,
        dataset: null,
        seed: 0,
        slo: null,
        ...p.config,
      },
      results: [r],
      bestRateWithinSlo: null,
    },
  });
  const measuredAt = p.measuredAt ?? session.createdAt;
  return { ...session, createdAt: measuredAt, runConfig: { ...session.runConfig, benchmarkTool: p.tool } };
}
