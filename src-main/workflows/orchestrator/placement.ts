/**
 * Where the measured server runs, decided once per run: it says whose hardware the session
 * records and whether this machine's GPU telemetry means anything for the run.
 *   simulated     SpeedMatrix's simulated vLLM: its profile's (simulated) GPU, no telemetry
 *   this-machine  launched here, or reached at a loopback or local address: detect, sample
 *   remote        anywhere else: this machine's hardware and GPU say nothing about it
 */
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { hostname, networkInterfaces } from 'node:os';
import type { ServerTarget } from '../../engine/server/target';

export type ServerPlacement = 'simulated' | 'this-machine' | 'remote';

/** The bare host of a URL ("[::1]" -> "::1"), lower case; null when the URL does not parse. */
function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return null;
  }
}

/** Whether `address` (an IP) is a loopback, "any" or one of this machine's own addresses. */
function isOwnAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^::ffff:/, '');
  if (a === '0.0.0.0' || a === '::' || a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a)) return true;
  return Object.values(networkInterfaces()).some((list) => (list ?? []).some((i) => i.address.toLowerCase() === a));
}

/** Whether `host` names this machine: an own address, "localhost", its own name, or a name that resolves to one of those. */
export async function isThisMachine(host: string): Promise<boolean> {
  const h = host.toLowerCase().replace(/\.$/, '');
  if (isIP(h)) return isOwnAddress(h);
  if (h === 'localhost' || h.endsWith('.localhost')) return true;
  const name = hostname().toLowerCase();
  if (h === name || h.split('.')[0] === name) return true;
  try {
    const addresses = await lookup(h, { all: true });
    return addresses.length > 0 && addresses.every((a) => isOwnAddress(a.address));
  } catch {
    return false; // a name that does not resolve here is not this machine
  }
}

export async function serverPlacement(
  target: Pick<ServerTarget, 'simulated' | 'baseUrl' | 'launch'>,
): Promise<ServerPlacement> {
  if (target.simulated) return 'simulated';
  // Launched through the supervisor: the process runs here, whatever address it listens on.
  if (target.launch.kind !== 'attach' && target.launch.argv.length > 0) return 'this-machine';
  const host = hostOf(target.baseUrl);
  return host !== null && (await isThisMachine(host)) ? 'this-machine' : 'remote';
}
