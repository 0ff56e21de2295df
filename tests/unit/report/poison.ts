/**
 * A session with an attack string in every free-text field the schema allows (enums and
 * formats stay valid), to prove reports let nothing through.
 */
import { type Session, SessionSchema } from '#shared/session/schema';
import { sampleSession } from '../../helpers/sample-session';

export const PAYLOAD =
  '<script>alert(1)</script><img src=x onerror=alert(2)><a href="javascript:alert(3)">x</a>|javascript:';

export function poisonedSession(base: Session = sampleSession()): Session {
  const s: Session = structuredClone(base);
  s.checksUnavailable = [PAYLOAD];
  s.hardware.notes = [PAYLOAD];
  s.server.env = { ...s.server.env, [`X${PAYLOAD}`]: PAYLOAD };
  s.cells[0].telemetry = {
    avgGpuUtilization: 0.5,
    avgPowerWatts: 300,
    avgSmClockHz: 1.9e9,
    avgMemoryUsedBytes: 1e9,
    avgTemperatureC: 60,
    throttleReasons: [PAYLOAD],
    energyPerTokenJoules: 1.2,
  };
  s.cells[3].evidence = { loopExcerpt: PAYLOAD, loopPeriodChars: 12, loopStream: 'content', logLines: [PAYLOAD] };
  // Every other string leaf: replace, keep it only if the schema still accepts the session.
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach((v, i) =>
        typeof v === 'string' ? tryReplace(node as unknown as Record<number, unknown>, i) : visit(v),
      );
    } else if (node && typeof node === 'object') {
      for (const k of Object.keys(node)) {
        const v = (node as Record<string, unknown>)[k];
        if (typeof v === 'string') tryReplace(node as Record<string, unknown>, k);
        else visit(v);
      }
    }
  };
  const tryReplace = (holder: Record<string | number, unknown>, key: string | number): void => {
    const old = holder[key];
    holder[key] = `${PAYLOAD}${String(old)}`;
    if (!SessionSchema.safeParse(s).success) holder[key] = old;
  };
  // Null fields the schema allows as strings get the payload too.
  s.engine = { ...s.engine, commit: '', quantization: '', backend: '', build: '', repository: '' };
  s.cells[3].reason = '';
  s.prefill[0].reason = '';
  s.hardware.gpuType = '';
  visit(s);
  return s;
}
