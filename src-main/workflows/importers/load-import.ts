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
  engineName: string;
  result: LoadRateResult;
  /** What the file says of its workload; the rest is the result's own (lengths from its means). */
  config: Partial<LoadConfig>;
}

export function importedLoadSession(p: ImportedPass): Session {
  const r = p.result;
  const tokens = (v: number | null) => ({ kind: 'fixed' as const, tokens: Math.max(1, Math.round(v ?? 1)) });
  return createSession({
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
}
