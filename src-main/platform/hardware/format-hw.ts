/**
 * The Hardware block as text, in the reference report's order (Type, GPU, VRAM, OS), followed
 * by the details the report leaves out (driver, CUDA, compute capability, power limit, CPU,
 * RAM) and what detection could not find.
 */
import { fmtGigabytes } from '#shared/report/format';
import type { Gpu, Hardware } from '#shared/session/schema';

/** GPU name as the reference report writes it: without the vendor prefix ("NVIDIA H200" -> "H200"). */
export function shortGpuName(name: string): string {
  return name.replace(/^(NVIDIA|AMD)\s+/i, '').trim() || name;
}

/** "H200", "2 x H200", or runs for a mix: "2 x H100 + 2 x A100". */
function gpuLine(gpus: readonly Gpu[], value: (g: Gpu) => string): string {
  const runs: Array<[string, number]> = [];
  for (const v of gpus.map(value)) {
    const last = runs[runs.length - 1];
    if (last && last[0] === v) last[1]++;
    else runs.push([v, 1]);
  }
  return runs.map(([v, n]) => (n > 1 ? `${n} x ${v}` : v)).join(' + ');
}

const distinct = (xs: Array<string | null>): string | null => {
  const set = [...new Set(xs.filter((x): x is string => x !== null))];
  return set.length === 0 ? null : set.join(', ');
};

/** Label/value pairs in display order; values carry their units. */
export function hardwareRows(hw: Hardware): Array<[string, string]> {
  const rows: Array<[string, string]> = [];
  const gpus = hw.gpus;
  rows.push(['Type', hw.gpuType ?? (gpus.length === 0 ? 'No supported GPU' : 'GPU')]);
  rows.push(['GPU', gpus.length > 0 ? gpuLine(gpus, (g) => shortGpuName(g.name)) : 'none found']);
  if (gpus.length > 0) rows.push(['VRAM', gpuLine(gpus, (g) => fmtGigabytes(g.vramBytes))]);
  rows.push(['OS', hw.os?.platform ?? 'unknown']);
  const driver = distinct(gpus.map((g) => g.driver));
  if (driver) rows.push(['Driver', driver]);
  const cuda = distinct(gpus.map((g) => g.cuda));
  if (cuda) rows.push(['CUDA', cuda]);
  const cc = distinct(gpus.map((g) => g.computeCapability));
  if (cc) rows.push([gpus.some((g) => g.vendor === 'amd') ? 'GPU target' : 'Compute capability', cc]);
  if (gpus.some((g) => g.powerLimitWatts !== null))
    rows.push([
      'Power limit',
      gpuLine(gpus, (g) => (g.powerLimitWatts === null ? '—' : `${Math.round(g.powerLimitWatts)} W`)),
    ]);
  if (gpus.length > 1 || gpus.some((g) => g.busId))
    rows.push(['GPU bus', gpus.map((g) => `${g.index}: ${g.busId ?? '—'}`).join(', ')]);
  if (hw.cpu) {
    const counts = [
      hw.cpu.cores !== null ? `${hw.cpu.cores} cores` : null,
      hw.cpu.threads !== null ? `${hw.cpu.threads} threads` : null,
    ].filter(Boolean);
    rows.push(['CPU', `${hw.cpu.model}${counts.length ? ` (${counts.join(', ')})` : ''}`]);
  }
  if (hw.ramBytes !== null) rows.push(['RAM', fmtGigabytes(hw.ramBytes)]);
  if (hw.os) {
    const os = [hw.os.distro, hw.os.release, hw.os.kernel ? `kernel ${hw.os.kernel}` : null, hw.os.arch]
      .filter(Boolean)
      .join(' ');
    if (os) rows.push(['OS version', os]);
  }
  for (const n of hw.notes) rows.push(['Note', n]);
  return rows;
}

/** The block `speedmatrix hw` prints: one "Label: value" line per row, the values aligned. */
export function formatHardware(hw: Hardware): string {
  const rows = hardwareRows(hw);
  const width = Math.max(...rows.map(([label]) => label.length)) + 1;
  const lines = ['Hardware', ...rows.map(([label, value]) => `  ${`${label}:`.padEnd(width)}  ${value}`)];
  return `${lines.join('\n')}\n`;
}
