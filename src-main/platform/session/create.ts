/** Building a new, empty session with the defaults filled in. */
import { randomBytes } from 'node:crypto';
import { APP_NAME, APP_VERSION } from '../runtime/app-version';
import {
  SESSION_FORMAT,
  SESSION_FORMAT_VERSION,
  type Session,
  SessionSchema,
  type SessionInput,
} from '#shared/session/schema';

/** A short tag unique to a run, used in prompt prefixes ("[RUN k3f9x2 CTX 65536]"). */
export const newRunTag = (): string => randomBytes(4).toString('hex').slice(0, 6);

type NewSessionParts = Partial<Omit<SessionInput, 'format' | 'formatVersion'>>;

export function createSession(parts: NewSessionParts = {}): Session {
  const now = new Date().toISOString();
  const base: SessionInput = {
    format: SESSION_FORMAT,
    formatVersion: SESSION_FORMAT_VERSION,
    appVersion: APP_VERSION,
    createdAt: now,
    updatedAt: now,
    simulated: false,
    origin: { kind: 'measured' },
    hardware: { gpus: [], cpu: null, ramBytes: null, os: null },
    engine: { name: 'unknown', version: null, commit: null, quantization: null, backend: null, build: null },
    server: {
      kind: 'attach',
      url: null,
      argv: [],
      env: {},
      display: '',
      model: null,
      servedModel: null,
      revision: null,
      maxModelLen: null,
    },
    runConfig: {
      contexts: [],
      concurrency: [],
      prefillContexts: [],
      secondsPerMeasurement: 30,
      maxOutputTokens: 4096,
      decodeTestMode: 'fixed-duration',
      prefillMode: 'during-decode-warmup',
      tokenTargeting: 'exact',
      benchmarkTool: `${APP_NAME} ${APP_VERSION}`,
      runTag: newRunTag(),
    },
    kvBudget: { tokens: null, source: 'unknown' },
    prefill: [],
    cells: [],
    serverLog: { lines: [], truncated: false },
    events: [],
    ...parts,
  };
  return SessionSchema.parse(base);
}
