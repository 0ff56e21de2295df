/**
 * GPU telemetry during a run: one long-lived `nvidia-smi --query-gpu=... -lms 1000` process
 * (cheap, and its samples are evenly spaced), restarted if it dies, stopped at the end. With
 * no NVIDIA GPU it says so once and stays quiet.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { EventEmitter } from 'node:events';
import type { CellTelemetry, TelemetrySeries } from '#shared/session/schema';
import { mean } from '#shared/mean';
import { findNvidiaSmi } from './nvidia-smi-path';
import { parseTelemetryLine, TELEMETRY_FIELDS, type GpuSample } from './nvidia-smi-parse';
import { signalChild } from '../processes/signal-child';

export type { GpuSample } from './nvidia-smi-parse';

export interface TelemetryOptions {
  nvidiaSmi?: string;
  intervalMs?: number;
  /** Give up after this many deaths in a row without a sample in between (default 5). */
  maxRestarts?: number;
}

export interface TelemetryEvents {
  sample: [GpuSample];
  /** Said once: why there is no telemetry (no nvidia-smi, it keeps dying...). */
  unavailable: [string];
  /** nvidia-smi died and is being restarted. */
  restart: [{ attempt: number; reason: string }];
}

/** Streams GPU samples until stop(). Keeps every sample in `samples` for the session. */
export class GpuTelemetry extends EventEmitter<TelemetryEvents> {
  readonly samples: GpuSample[] = [];
  private child: ChildProcess | null = null;
  private stopped = true;
  private failuresInARow = 0;
  private restartTimer: NodeJS.Timeout | null = null;
  private _unavailable: string | null = null;

  constructor(private readonly opts: TelemetryOptions = {}) {
    super();
  }

  /** Why there is no telemetry, once that is known; null while it works (or before start). */
  get unavailableReason(): string | null {
    return this._unavailable;
  }

  get running(): boolean {
    return !this.stopped;
  }

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.failuresInARow = 0;
    this.launch();
  }

  private launch(): void {
    const cmd = this.opts.nvidiaSmi ?? findNvidiaSmi();
    const args = [
      `--query-gpu=${TELEMETRY_FIELDS.join(',')}`,
      '--format=csv,noheader,nounits',
      `-lms`,
      String(this.opts.intervalMs ?? 1000),
    ];
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], windowsHide: true });
    this.child = child;
    let partial = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      const lines = (partial + chunk).split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        const s = parseTelemetryLine(line, Date.now());
        if (!s) continue;
        this.failuresInARow = 0;
        this.samples.push(s);
        this.emit('sample', s);
      }
    });
    child.stderr
      .setEncoding('utf8')
      .on('data', (d: string) => (stderr += d).length > 4000 && (stderr = stderr.slice(-4000)));
    child.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') this.giveUp('no NVIDIA GPU telemetry: nvidia-smi is not installed');
    });
    child.on('close', (code) => {
      if (this.child === child) this.child = null;
      if (this.stopped || this._unavailable) return;
      const reason = stderr.trim().split('\n')[0] || `exit code ${code}`;
      this.failuresInARow++;
      if (this.failuresInARow > (this.opts.maxRestarts ?? 5)) {
        this.giveUp(`no GPU telemetry: nvidia-smi keeps exiting (${reason})`);
        return;
      }
      this.emit('restart', { attempt: this.failuresInARow, reason });
      this.restartTimer = setTimeout(() => this.launch(), Math.min(1000 * this.failuresInARow, 5000));
    });
  }

  private giveUp(reason: string): void {
    if (this._unavailable) return;
    this._unavailable = reason;
    this.stopped = true;
    this.emit('unavailable', reason);
  }

  /** Stop sampling and end nvidia-smi. */
  stop(): void {
    this.stopped = true;
    if (this.restartTimer) clearTimeout(this.restartTimer);
    if (this.child) signalChild(this.child, 'SIGTERM');
    this.child = null;
  }
}

/** Samples as the session's columnar series; t in seconds since `originMs` (the session's createdAt). */
export function toTelemetrySeries(
  samples: readonly GpuSample[],
  opts: { originMs?: number; intervalSeconds?: number } = {},
): TelemetrySeries {
  const origin = opts.originMs ?? samples[0]?.t ?? 0;
  return {
    intervalSeconds: opts.intervalSeconds ?? 1,
    t: samples.map((s) => Math.round(s.t - origin) / 1000),
    gpu: samples.map((s) => s.gpu),
    utilization: samples.map((s) => s.utilization),
    memoryUsedBytes: samples.map((s) => s.memoryUsedBytes),
    powerWatts: samples.map((s) => s.powerWatts),
    powerLimitWatts: samples.map((s) => s.powerLimitWatts),
    smClockHz: samples.map((s) => s.smClockHz),
    memClockHz: samples.map((s) => s.memClockHz),
    temperatureC: samples.map((s) => s.temperatureC),
    pstate: samples.map((s) => s.pstate),
    throttleReasons: samples.map((s) => (s.throttleReasons === null ? null : s.throttleReasons.join(','))),
  };
}

/**
 * A resumed run's telemetry after the series the session already holds: only samples later than
 * its last one are added, so a loop that was also running during the first part (the app's)
 * does not repeat them, and the first part is never lost.
 */
export function appendTelemetrySeries(existing: TelemetrySeries | null, added: TelemetrySeries): TelemetrySeries {
  if (!existing || existing.t.length === 0) return added;
  const last = existing.t[existing.t.length - 1];
  const from = added.t.findIndex((t) => t > last);
  if (from < 0) return existing;
  const join = <T>(a: T[], b: T[]): T[] => [...a, ...b.slice(from)];
  return {
    intervalSeconds: existing.intervalSeconds,
    t: join(existing.t, added.t),
    gpu: join(existing.gpu, added.gpu),
    utilization: join(existing.utilization, added.utilization),
    memoryUsedBytes: join(existing.memoryUsedBytes, added.memoryUsedBytes),
    powerWatts: join(existing.powerWatts, added.powerWatts),
    powerLimitWatts: join(existing.powerLimitWatts, added.powerLimitWatts),
    smClockHz: join(existing.smClockHz, added.smClockHz),
    memClockHz: join(existing.memClockHz, added.memClockHz),
    temperatureC: join(existing.temperatureC, added.temperatureC),
    pstate: join(existing.pstate, added.pstate),
    throttleReasons: join(existing.throttleReasons, added.throttleReasons),
  };
}

/**
 * One decode cell's GPU figures over its window [fromMs, toMs]. With several GPUs, power and
 * memory are summed over GPUs at each moment (the whole server's draw), utilization, clocks and
 * temperature averaged. Energy per output token = average total power x window / tokens.
 * `gpu_idle` is not a throttle and is left out of the reasons.
 */
export function summarizeCellTelemetry(
  samples: readonly GpuSample[],
  fromMs: number,
  toMs: number,
  outputTokens: number,
): CellTelemetry {
  const inWindow = samples.filter((s) => s.t >= fromMs && s.t <= toMs);
  const byTime = new Map<number, GpuSample[]>();
  for (const s of inWindow) {
    // Lines of one loop iteration carry the same timestamp (to the ms); bucket per 100 ms to be safe.
    const key = Math.round(s.t / 100);
    byTime.set(key, [...(byTime.get(key) ?? []), s]);
  }
  const sumPer = (f: (s: GpuSample) => number | null): number[] =>
    [...byTime.values()].flatMap((group) => {
      const vals = group.map(f).filter((v): v is number => v !== null);
      return vals.length === 0 ? [] : [vals.reduce((a, b) => a + b, 0)];
    });
  const avgOf = (f: (s: GpuSample) => number | null) => mean(inWindow.map(f));
  const avgPower = mean(sumPer((s) => s.powerWatts));
  const windowSeconds = (toMs - fromMs) / 1000;
  const reasons = new Set<string>();
  for (const s of inWindow) for (const r of s.throttleReasons ?? []) if (r !== 'gpu_idle') reasons.add(r);
  return {
    avgGpuUtilization: avgOf((s) => s.utilization),
    avgPowerWatts: avgPower,
    avgSmClockHz: avgOf((s) => s.smClockHz),
    avgMemoryUsedBytes: mean(sumPer((s) => s.memoryUsedBytes)),
    avgTemperatureC: avgOf((s) => s.temperatureC),
    throttleReasons: [...reasons].sort(),
    energyPerTokenJoules:
      avgPower !== null && outputTokens > 0 && windowSeconds > 0 ? (avgPower * windowSeconds) / outputTokens : null,
  };
}
