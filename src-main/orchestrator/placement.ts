/**
 * Where the measured server runs, decided once per run: it says whose hardware the session
 * records and whether this machine's GPU telemetry means anything for the run.
 *   simulated     SpeedMatrix's simulated vLLM: its profile's (simulated) GPU, no telemetry
 *   this-machine  launched here, or reached at a loopback or local address: detect, sample
 *   remote        anywhere else: this machine's hardware and GPU say nothing about it
 */
import { hostname, networkInterfaces } from 'node:os';
import type { ServerTarget } from '../server/target';

export type ServerPlacement = 'simulated' | 'this-machine' | 'remote';

/** The bare host of a URL ("[::1]" -> "::1"), lower case; null when the URL does not parse. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/** Whether `host` names this machine: loopback, "any", its own name or one of its addresses. */
export function isThisMachine(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (h === 'localhost' || h.endsWith('.localhost') || h === '0.0.0.0' || h === '::' || h === '::1') return true;
  if (/^127\.\d+\.\d+\.\d+$/.test(h) || /^::ffff:127\./.test(h)) return true;
  const name = hostname().toLowerCase();
  if (h === name || h.split('.')[0] === name) return true;
  const own = Object.values(networkInterfaces()).flatMap((list) => (list ?? []).map((a) => a.address.toLowerCase()));
  return own.includes(h) || own.includes(h.replace(/^::ffff:/, ''));
}

export function serverPlacement(target: Pick<ServerTarget, 'simulated' | 'baseUrl' | 'launch'>): ServerPlacement {
  if (target.simulated) return 'simulated';
  // Launched through the supervisor: the process runs here, whatever address it listens on.
  if (target.launch.kind !== 'attach' && target.launch.argv.length > 0) return 'this-machine';
  const host = hostOf(target.baseUrl);
  return host !== null && isThisMachine(host) ? 'this-machine' : 'remote';
}
