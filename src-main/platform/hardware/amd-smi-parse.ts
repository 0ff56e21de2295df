/**
 * Parser for `amd-smi static --json`. Field layout changed across ROCm releases (a top-level
 * list, or `{"gpu_data": [...]}`; sizes as `{"value", "unit"}` or "192 GB" strings), so every
 * field is read tolerantly. Pure.
 */

interface AmdGpuStatic {
  index: number;
  name: string;
  uuid: string | null;
  vramBytes: number | null;
  driver: string | null;
  busId: string | null;
  /** gfx target, e.g. "gfx942" (AMD's counterpart of CUDA compute capability). */
  target: string | null;
  powerLimitWatts: number | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' && !/^N\/A$/i.test(v.trim()) ? v.trim() : null;

const UNIT: Record<string, number> = {
  B: 1,
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
  KIB: 1024,
  MIB: 1024 ** 2,
  GIB: 1024 ** 3,
};

/** A size as bytes: `{"value": 196592, "unit": "MB"}`, "192 GB", or a bare number of MB. */
function bytes(v: unknown): number | null {
  if (isObj(v)) return bytes(`${v.value} ${v.unit ?? 'MB'}`);
  if (typeof v === 'number') return v * 1024 ** 2;
  const m = /^\s*([\d.]+)\s*([KMGT]i?B|B)?\s*$/i.exec(String(v ?? ''));
  if (!m) return null;
  return Number(m[1]) * (UNIT[(m[2] ?? 'MB').toUpperCase()] ?? 1);
}

function watts(v: unknown): number | null {
  if (isObj(v)) return watts(v.value);
  const n = Number.parseFloat(String(v ?? ''));
  return Number.isFinite(n) ? n : null;
}

export function parseAmdSmiStatic(text: string): AmdGpuStatic[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return [];
  }
  const list = Array.isArray(data) ? data : isObj(data) && Array.isArray(data.gpu_data) ? data.gpu_data : [];
  return list.filter(isObj).map((g, i) => {
    const asic = isObj(g.asic) ? g.asic : {};
    const vram = isObj(g.vram) ? g.vram : {};
    const driver = isObj(g.driver) ? g.driver : {};
    const bus = isObj(g.bus) ? g.bus : {};
    const limit = isObj(g.limit) ? g.limit : {};
    return {
      index: typeof g.gpu === 'number' ? g.gpu : i,
      name: str(asic.market_name) ?? str(asic.name) ?? 'AMD GPU',
      uuid: str(asic.asic_serial) ?? str(g.uuid),
      vramBytes: bytes(vram.size),
      driver: str(driver.version),
      busId: str(bus.bdf),
      target: str(asic.target_graphics_version),
      powerLimitWatts: watts(limit.max_power ?? limit.ppt0_power_limit ?? limit.power_cap),
    };
  });
}
