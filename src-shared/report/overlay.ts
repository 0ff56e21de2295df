/**
 * Sessions overlaid on one chart: total tok/s against requests at once, one line per session per
 * context, as measured or normalised per GPU, per watt or per GPU price per hour, so runs on
 * different hardware rank fairly. Every normalisation is defined here once, with the reason in
 * words where a session lacks what it needs (no power telemetry, no GPU count, no price); the app's
 * Compare view, the comparison reports and the results site all draw from it. Pure.
 */
import type { Session } from '../session/schema';
import { cellIndex, cellKey } from '../cell-key';
import { NONE, fmtContext, fmtContexts, fmtTokPerSec } from './format';
import { parseLaunchLine } from './launch-flags';
import { type GpuPrice, DEFAULT_CURRENCY } from './price';
import { type TradeOffPoint, tradeOffLines } from './trade-off';

export const NORMALISATIONS = ['measured', 'per-gpu', 'per-watt', 'per-price'] as const;
export type Normalisation = (typeof NORMALISATIONS)[number];

/** The switch's words for each normalisation. */
export const NORMALISATION_LABELS: Record<Normalisation, string> = {
  measured: 'As measured',
  'per-gpu': 'Per GPU',
  'per-watt': 'Per watt',
  'per-price': 'Per price per hour',
};

/** A point of a session's line: the trade-off's figures and the server's mean power draw over the window. */
export interface OverlayPoint extends TradeOffPoint {
  /** All the server's GPUs together, in watts; null without power telemetry. */
  powerWatts: number | null;
}

export interface OverlayLine {
  context: number;
  /** "8K", as the session's other charts name it. */
  contextLabel: string;
  points: OverlayPoint[];
}

export interface OverlaySession {
  /** The comparison's letter. */
  label: string;
  /** "H100 80GB × 2", "GPU not recorded". */
  hardware: string;
  /** The tool and version that measured ("SpeedMatrix 0.1.0", "llm-inference-bench v0.7.6"). */
  method: string;
  /** GPUs the server used; null where neither the launch nor the hardware says. */
  gpuCount: number | null;
  /** Where the count comes from, in words: "tensor-parallel size 2", "the machine's 2 GPUs". */
  gpuCountSource: string | null;
  lines: OverlayLine[];
}

/** The GPU count a launch line records: tensor × pipeline × data parallel sizes, or null when it names none. */
export function launchGpuCount(words: readonly string[]): number | null {
  const sizes: Record<string, number> = {};
  const names: Record<string, string> = {
    '--tensor-parallel-size': 'tp',
    '-tp': 'tp',
    '--pipeline-parallel-size': 'pp',
    '-pp': 'pp',
    '--data-parallel-size': 'dp',
    '-dp': 'dp',
  };
  for (let i = 0; i < words.length; i++) {
    const [flag, inline] = words[i].includes('=') ? words[i].split('=', 2) : [words[i], undefined];
    const name = names[flag];
    if (!name) continue;
    const n = Number(inline ?? words[i + 1]);
    if (Number.isInteger(n) && n > 0) sizes[name] = n;
  }
  if (Object.keys(sizes).length === 0) return null;
  return (sizes.tp ?? 1) * (sizes.pp ?? 1) * (sizes.dp ?? 1);
}

/** GPUs the server used: its launch's parallel sizes where recorded (a machine may hold more than it used), else the machine's GPUs. */
export function gpuCountOf(session: Session): { count: number | null; source: string | null } {
  // The launch as the person gave it first, as the comparison's settings read it.
  const words = session.server.display.trim() ? parseLaunchLine(session.server.display).argv : session.server.argv;
  const launched = launchGpuCount(words);
  if (launched !== null) return { count: launched, source: `the launch's parallel size ${launched}` };
  const n = session.hardware.gpus.length;
  if (n > 0) return { count: n, source: `the machine's ${n === 1 ? 'GPU' : `${n} GPUs`}` };
  return { count: null, source: null };
}

/** "H100 80GB × 2": the first GPU's name and the count used; "GPU not recorded" when neither is known. */
function hardwareLabel(session: Session, count: number | null): string {
  const name = session.hardware.gpus[0]?.name;
  if (!name && count === null) return 'GPU not recorded';
  return `${name ?? 'unrecorded GPU'} × ${count ?? '?'}`;
}

/** Each session's lines, one per context, with the server's power draw at each point. */
export function overlaySessions(sessions: readonly Session[], labels: readonly string[]): OverlaySession[] {
  return sessions.map((s, i) => {
    const cells = cellIndex(s.cells);
    const { count, source } = gpuCountOf(s);
    const lines = tradeOffLines(s.cells);
    const contextLabels = fmtContexts(lines.map((l) => l.context));
    return {
      label: labels[i],
      hardware: hardwareLabel(s, count),
      method: s.runConfig.benchmarkTool,
      gpuCount: count,
      gpuCountSource: source,
      lines: lines.map((l, j) => ({
        context: l.context,
        contextLabel: contextLabels[j],
        points: l.points.map((p) => {
          const watts = cells.get(cellKey({ context: l.context, concurrency: p.concurrency }))?.telemetry
            ?.avgPowerWatts;
          return { ...p, powerWatts: watts !== null && watts !== undefined && watts > 0 ? watts : null };
        }),
      })),
    };
  });
}

/** The y axis's unit under a normalisation; a price names its currency. */
export function normalisedUnit(mode: Normalisation, price: GpuPrice | null): string {
  if (mode === 'per-gpu') return 'tok/s per GPU';
  if (mode === 'per-watt') return 'tok/s per W';
  if (mode === 'per-price') return `tok/s per ${price?.currency ?? DEFAULT_CURRENCY}/h`;
  return 'tok/s';
}

/** Why a session has no figure under a normalisation, in words; null when it has one. */
export function normalisationUnavailable(
  s: OverlaySession,
  mode: Normalisation,
  price: GpuPrice | null,
): string | null {
  if (mode === 'per-gpu' && s.gpuCount === null) return `${s.label}: no GPU count recorded, so no per-GPU figure.`;
  if (mode === 'per-watt' && !s.lines.some((l) => l.points.some((p) => p.powerWatts !== null)))
    return `${s.label}: no GPU power telemetry (simulated, remote or imported runs have none), so no per-watt figure.`;
  if (mode === 'per-price') {
    if (price === null || !(price.perHour > 0)) return `${s.label}: give a GPU price per hour to see tok/s per price.`;
    if (s.gpuCount === null) return `${s.label}: no GPU count recorded, so the server's price per hour is unknown.`;
  }
  return null;
}

/**
 * A point's total tok/s under a normalisation: per GPU divides by the GPUs used, per watt by the
 * server's mean draw, per price by the server's price per hour (price per GPU-hour × GPUs). Null
 * where the session lacks what it needs.
 */
export function normalisedTotal(
  p: OverlayPoint,
  s: Pick<OverlaySession, 'gpuCount'>,
  mode: Normalisation,
  price: GpuPrice | null,
): number | null {
  if (mode === 'measured') return p.total;
  if (mode === 'per-watt') return p.powerWatts === null ? null : p.total / p.powerWatts;
  if (s.gpuCount === null || !(s.gpuCount > 0)) return null;
  if (mode === 'per-gpu') return p.total / s.gpuCount;
  if (price === null || !(price.perHour > 0)) return null;
  return p.total / (price.perHour * s.gpuCount);
}

/** A normalised figure with its unit: "1,234.5 tok/s per GPU", "0.812 tok/s per W", "—". */
export function fmtNormalised(v: number | null, mode: Normalisation, price: GpuPrice | null): string {
  if (v === null || !Number.isFinite(v)) return NONE;
  const figure = mode === 'per-watt' ? v.toFixed(3) : fmtTokPerSec(v);
  return `${figure} ${normalisedUnit(mode, price)}`;
}

export interface OverlaySeries {
  /** "A · H100 80GB × 2 · SpeedMatrix 0.1.0 · 8K". */
  name: string;
  sessionIndex: number;
  context: number;
  x: number[];
  y: number[];
  /** Hover text of each point, its figure with units. */
  text: string[];
}

/** The legend's name of a session: its letter, hardware and method. */
export const overlaySessionName = (s: OverlaySession): string => `${s.label} · ${s.hardware} · ${s.method}`;

/** The chart's lines at one context (or every context when null), points without a figure left out. */
export function overlaySeries(
  sessions: readonly OverlaySession[],
  mode: Normalisation,
  price: GpuPrice | null,
  context: number | null,
): OverlaySeries[] {
  return sessions.flatMap((s, sessionIndex) =>
    s.lines
      .filter((l) => context === null || l.context === context)
      .flatMap((l) => {
        const points = l.points.flatMap((p) => {
          const v = normalisedTotal(p, s, mode, price);
          return v === null ? [] : [{ p, v }];
        });
        if (points.length === 0) return [];
        return [
          {
            name: `${overlaySessionName(s)} · ${l.contextLabel}`,
            sessionIndex,
            context: l.context,
            x: points.map(({ p }) => p.concurrency),
            y: points.map(({ v }) => v),
            text: points.map(
              ({ p, v }) =>
                `${s.label} at ${fmtContext(l.context)} × ${p.concurrency}: ${fmtNormalised(v, mode, price)}`,
            ),
          },
        ];
      }),
  );
}

/** Every context any session measured, ascending; the picker's choices. */
export const overlayContexts = (sessions: readonly OverlaySession[]): number[] =>
  [...new Set(sessions.flatMap((s) => s.lines.map((l) => l.context)))].sort((a, b) => a - b);

/** The longest context every session measured (fairest single view), else the longest any did; null for none. */
export function defaultOverlayContext(sessions: readonly OverlaySession[]): number | null {
  const all = overlayContexts(sessions);
  const common = all.filter((c) => sessions.every((s) => s.lines.some((l) => l.context === c)));
  return common.at(-1) ?? all.at(-1) ?? null;
}

/**
 * Each session's best figure under the normalisation (at one context, or any), best first, then
 * those without one with the reason: "B · H100 80GB × 1 · …: 2,400.0 tok/s per GPU at 8K × 64".
 */
export function overlayRanking(
  sessions: readonly OverlaySession[],
  mode: Normalisation,
  price: GpuPrice | null,
  context: number | null,
): string[] {
  const best = sessions.map((s) => {
    let top: { v: number; context: number; concurrency: number } | null = null;
    for (const l of s.lines) {
      if (context !== null && l.context !== context) continue;
      for (const p of l.points) {
        const v = normalisedTotal(p, s, mode, price);
        if (v !== null && (top === null || v > top.v)) top = { v, context: l.context, concurrency: p.concurrency };
      }
    }
    return { s, top };
  });
  const ranked = best
    .filter((b) => b.top !== null)
    .sort((a, b) => b.top!.v - a.top!.v)
    .map(
      ({ s, top }, i) =>
        `${i + 1}. ${overlaySessionName(s)}: ${fmtNormalised(top!.v, mode, price)} at ${fmtContext(top!.context)} × ${top!.concurrency}`,
    );
  const missing = best
    .filter((b) => b.top === null)
    .map(
      ({ s }) =>
        `${overlaySessionName(s)}: ${NONE} (${normalisationUnavailable(s, mode, price) ?? `no figure${context === null ? '' : ` at ${fmtContext(context)}`}`})`,
    );
  return [...ranked, ...missing];
}
