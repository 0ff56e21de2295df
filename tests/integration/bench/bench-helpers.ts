/** Shared by the engine's end-to-end tests: run a plan against a real simulator process. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { startRun, type StartRunOptions } from '../../../src-main/engine/bench/start-run';
import type { BenchEvent, RunConfigInput } from '../../../src-main/engine/bench/types';
import { probeServer } from '../../../src-main/engine/server/probe';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import type { Session } from '#shared/session/schema';

// Imported at the top of a test file, so this hook belongs to that file: every folder made by
// tempDir() is removed after the file's last test, whether it passed or failed.
const made: string[] = [];
afterAll(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'sm-bench-'));
  made.push(dir);
  return dir;
}

export async function targetOf(url: string, apiKey?: string): Promise<ServerTarget> {
  const p = await probeServer({ baseUrl: url, apiKey });
  if (!p.ok) throw new Error(p.error);
  return p.data;
}

export interface RunResult {
  session: Session;
  events: BenchEvent[];
  file: string;
}

/** Run to the end; options may stop it (via onEvent) or resume. */
export async function runBench(
  target: ServerTarget,
  config: RunConfigInput,
  file: string,
  extra: Partial<StartRunOptions> & { onEventAlso?: (e: BenchEvent, stop: () => Promise<void>) => void } = {},
): Promise<RunResult> {
  const events: BenchEvent[] = [];
  let stop: () => Promise<void> = async () => undefined;
  const handle = startRun({
    target,
    config,
    sessionFile: file,
    ...extra,
    onEvent: (e) => {
      events.push(e);
      extra.onEventAlso?.(e, stop);
    },
  });
  stop = () => handle.stop();
  const session = await handle.done;
  return { session, events, file: handle.sessionFile() };
}

export interface SimRequest {
  id: string;
  prompt_tokens: number;
  cached_prompt_tokens: number;
  max_tokens: number;
  arrival_ms: number;
  first_token_ms: number | null;
  finished_ms: number | null;
  finish_reason: string | null;
  completion_tokens: number;
  looped: boolean;
  emissions: Array<[number, number]>;
}

export async function simRequests(url: string): Promise<SimRequest[]> {
  const res = await fetch(`${url}/sim/requests`);
  if (res.status !== 200) throw new Error(`/sim/requests answered ${res.status}`);
  return ((await res.json()) as { requests: SimRequest[] }).requests;
}

/** Tokens the simulator emitted inside [fromMs, toMs] (wall epoch ms), over all requests. */
export function emittedBetween(reqs: readonly SimRequest[], fromMs: number, toMs: number): number {
  let n = 0;
  for (const r of reqs) for (const [t, k] of r.emissions) if (t >= fromMs && t <= toMs) n += k;
  return n;
}

export const cellsOf = (s: Session) => Object.fromEntries(s.cells.map((c) => [`${c.context}x${c.concurrency}`, c]));
export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
