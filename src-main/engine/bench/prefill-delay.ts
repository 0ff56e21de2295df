/**
 * How much this machine held back a cold prefill's kept measurements (docs/method.md, "Prefill"),
 * in the session's words, and whether a server shares this machine's CPUs with the client.
 */
import { fmtOneDecimal, plural } from '#shared/report/format';
import type { PrefillResult } from '#shared/session/schema';
import type { ServerTarget } from '../server/target';
import { clientDelayed, delayShare } from './client-delay';
import { scrapeQueue } from './decode';
import type { BenchHttp } from './http';

/** A measurement and the share of its delay a simulated server on this machine was held back (wall ms). */
export interface ServerDelayedMeasurement {
  ttftMs: number;
  /** Wall ms: the client's wait for a CPU plus a simulated server's lost schedule; null when unknown. */
  clientDelayMs: number | null;
  /** Wall ms of it that a simulated server on this machine was held back (its lost schedule and CPU wait). */
  serverDelayMs: number;
}

/**
 * A real server on this machine (launched here, or at a loopback address): the busy CPUs that delay the client
 * delay it too, by an amount this client cannot read (client-delay.ts unreliablePrefill).
 */
export function realServerHere(target: ServerTarget): boolean {
  if (target.simulated) return false;
  if (target.launch.kind !== 'attach' && target.launch.argv.length > 0) return true;
  return /^(localhost|127\.|\[::1\]$)/.test(new URL(target.baseUrl).hostname);
}

/**
 * The client's delay of the kept measurements (the longest, in server seconds by `seconds`), and a note when that
 * was still over the limit after the retakes: the figure may read low by up to that share.
 */
export function keptClientDelay(
  kept: readonly ServerDelayedMeasurement[],
  retakes: number,
  seconds: (wallMs: number) => number,
): { delay: Pick<PrefillResult, 'clientDelay'>; note: string | null; worstShare: number | null } {
  let worst: ServerDelayedMeasurement | null = null;
  for (const m of kept) if (m.clientDelayMs !== null && m.clientDelayMs > (worst?.clientDelayMs ?? -1)) worst = m;
  if (worst?.clientDelayMs == null) return { delay: {}, note: null, worstShare: null };
  const share = delayShare(worst) ?? 0;
  const lag = worst.serverDelayMs > 0 ? { serverDelaySeconds: seconds(worst.serverDelayMs) } : {};
  const who = worst.serverDelayMs > 0 ? 'the client and the simulated server on it' : 'the client';
  return {
    delay: { clientDelay: { seconds: seconds(worst.clientDelayMs), retakes, ...lag } },
    note: clientDelayed(worst)
      ? `this machine kept ${who} from running for ${fmtOneDecimal(share * 100)}% of the time to first token in a kept measurement (after ${plural(retakes, 'retake')}), so the figure may read up to that much low`
      : null,
    worstShare: share,
  };
}

/**
 * How much a simulated server has been held back so far: the schedule it gave up (simulated seconds) and its own
 * wait for a CPU (wall seconds). On this machine the busy CPUs that delay the client delay it too. null for other
 * servers, and where it does not say.
 */
export async function simulatorDelay(
  http: BenchHttp,
  target: ServerTarget,
): Promise<{ lagSeconds: number; cpuWaitSeconds: number } | null> {
  if (!target.simulated || !target.metricsAvailable) return null;
  const q = await scrapeQueue(http, target.engineKind);
  if (q?.simCpuWaitSeconds === undefined) return null;
  return { lagSeconds: q.simLagSeconds ?? 0, cpuWaitSeconds: q.simCpuWaitSeconds };
}
