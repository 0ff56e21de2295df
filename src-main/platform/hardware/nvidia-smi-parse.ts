/**
 * Parsers for nvidia-smi output. Pure: text in, typed values out; replayed in tests against
 * real captures. Missing values print as `[N/A]`, `[Not Supported]` or a bare `N/A` depending
 * on the driver; zero is a value, never missing.
 */

/** A CSV cell as a value: null for every "missing" spelling nvidia-smi uses. */
export function cell(raw: string | undefined): string | null {
  if (raw === undefined) return null;
  const v = raw.trim();
  if (
    v === '' ||
    /^\[?(N\/A|Not Supported|Unknown Error|Insufficient Permissions|GPU requires reset|Not Available)\]?$/i.test(v)
  )
    return null;
  return v;
}

/** A numeric cell, tolerating a unit suffix ("143771 MiB", "78.97 W"); null when missing. */
function numCell(raw: string | undefined): number | null {
  const v = cell(raw);
  if (v === null) return null;
  const n = Number.parseFloat(v);
  return Number.isFinite(n) ? n : null;
}

/** Split `--format=csv,noheader` output into rows of cells (names with commas do not occur in these fields). */
function csvRows(text: string): string[][] {
  return text
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => l.split(',').map((c) => c.trim()));
}

/** Fields of the identity query, in order. */
export const GPU_IDENTITY_FIELDS = [
  'index',
  'name',
  'uuid',
  'memory.total',
  'driver_version',
  'pci.bus_id',
  'power.limit',
] as const;

interface NvidiaGpuIdentity {
  index: number;
  name: string;
  uuid: string | null;
  memoryTotalBytes: number | null;
  driver: string | null;
  busId: string | null;
  powerLimitWatts: number | null;
}

const MIB = 1024 * 1024;

/** Parse `--query-gpu=index,name,uuid,memory.total,driver_version,pci.bus_id,power.limit --format=csv,noheader,nounits`. */
export function parseGpuIdentity(text: string): NvidiaGpuIdentity[] {
  return csvRows(text)
    .filter((r) => r.length >= GPU_IDENTITY_FIELDS.length && /^\d+$/.test(r[0]))
    .map((r) => {
      const mem = numCell(r[3]);
      return {
        index: Number(r[0]),
        name: cell(r[1]) ?? 'NVIDIA GPU',
        uuid: cell(r[2]),
        memoryTotalBytes: mem === null ? null : mem * MIB,
        driver: cell(r[4]),
        busId: cell(r[5]),
        powerLimitWatts: numCell(r[6]),
      };
    });
}

/** Parse `--query-gpu=index,compute_cap --format=csv,noheader`: index -> "9.0". */
export function parseComputeCaps(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const r of csvRows(text)) {
    const cap = cell(r[1]);
    if (/^\d+$/.test(r[0]) && cap && /^\d+\.\d+$/.test(cap)) out.set(Number(r[0]), cap);
  }
  return out;
}

/** The CUDA version from the plain `nvidia-smi` header ("CUDA Version: 13.0") or `nvidia-smi -q` ("CUDA Version : 13.0"). */
export function parseCudaVersion(text: string): string | null {
  const m = /CUDA Version\s*:\s*(\S+)/.exec(text);
  if (!m) return null;
  return cell(m[1].replace(/\|$/, ''));
}

/** The driver version from the header or `-q`, a fallback when the query lacks it. */
export function parseDriverVersion(text: string): string | null {
  const m = /Driver Version\s*:\s*(\S+)/.exec(text);
  return m ? cell(m[1]) : null;
}

interface ComputeApp {
  pid: number;
  name: string;
  usedMemoryBytes: number | null;
}

/** Parse `--query-compute-apps=pid,process_name,used_memory --format=csv,noheader,nounits`. */
export function parseComputeApps(text: string): ComputeApp[] {
  return csvRows(text)
    .filter((r) => /^\d+$/.test(r[0]))
    .map((r) => {
      const mem = numCell(r[r.length - 1]);
      return {
        pid: Number(r[0]),
        name: r.slice(1, -1).join(',').trim() || '?',
        usedMemoryBytes: mem === null ? null : mem * MIB,
      };
    });
}

/** Telemetry fields, in query order (`clocks_throttle_reasons` is the spelling old and new drivers both accept). */
export const TELEMETRY_FIELDS = [
  'timestamp',
  'index',
  'utilization.gpu',
  'memory.used',
  'power.draw',
  'power.limit',
  'clocks.sm',
  'clocks.mem',
  'temperature.gpu',
  'pstate',
  'clocks_throttle_reasons.active',
] as const;

/** One GPU at one moment. Base units; t is epoch milliseconds. */
export interface GpuSample {
  t: number;
  gpu: number;
  /** 0..1 */
  utilization: number | null;
  memoryUsedBytes: number | null;
  powerWatts: number | null;
  powerLimitWatts: number | null;
  smClockHz: number | null;
  memClockHz: number | null;
  temperatureC: number | null;
  pstate: string | null;
  /** Active clock event (throttle) reasons, e.g. ["sw_power_cap"]; [] when none; null when not reported. */
  throttleReasons: string[] | null;
}

/** Bits of clocks_event_reasons.active, as nvidia-smi --help-query-gpu documents them. */
const REASON_BITS: Array<[number, string]> = [
  [0x1, 'gpu_idle'],
  [0x2, 'applications_clocks_setting'],
  [0x4, 'sw_power_cap'],
  [0x8, 'hw_slowdown'],
  [0x10, 'sync_boost'],
  [0x20, 'sw_thermal_slowdown'],
  [0x40, 'hw_thermal_slowdown'],
  [0x80, 'hw_power_brake_slowdown'],
  [0x100, 'display_clock_setting'],
];

/** Decode the hex bitmask ("0x0000000000000004") into reason names. */
export function decodeThrottleReasons(raw: string | undefined): string[] | null {
  const v = cell(raw);
  if (v === null || !/^0x[0-9a-f]+$/i.test(v)) return null;
  const bits = Number.parseInt(v.slice(2).slice(-8), 16);
  return REASON_BITS.filter(([b]) => (bits & b) !== 0).map(([, n]) => n);
}

/** nvidia-smi prints local time "2026/11/29 23:37:47.918"; fall back to `fallbackMs` when it does not parse. */
function parseSmiTimestamp(raw: string, fallbackMs: number): number {
  const m = /^(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?$/.exec(raw.trim());
  if (!m) return fallbackMs;
  const ms = m[7] ? Number(m[7].padEnd(3, '0')) : 0;
  return new Date(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6], ms).getTime();
}

/** Parse one line of the telemetry loop (fields as TELEMETRY_FIELDS, nounits). */
export function parseTelemetryLine(line: string, receivedAtMs: number = Date.now()): GpuSample | null {
  const r = line.split(',').map((c) => c.trim());
  if (r.length < 9 || !/^\d+$/.test(r[1])) return null;
  const mhz = (s: string | undefined) => {
    const v = numCell(s);
    return v === null ? null : v * 1e6;
  };
  const util = numCell(r[2]);
  const mem = numCell(r[3]);
  return {
    t: parseSmiTimestamp(r[0], receivedAtMs),
    gpu: Number(r[1]),
    utilization: util === null ? null : util / 100,
    memoryUsedBytes: mem === null ? null : mem * MIB,
    powerWatts: numCell(r[4]),
    powerLimitWatts: numCell(r[5]),
    smClockHz: mhz(r[6]),
    memClockHz: mhz(r[7]),
    temperatureC: numCell(r[8]),
    pstate: cell(r[9]),
    throttleReasons: decodeThrottleReasons(r[10]),
  };
}
