/**
 * Live GPU telemetry for the Hardware view while a server runs: the hardware module's
 * long-lived nvidia-smi loop, its samples sent to the renderer in one message a second.
 * With no NVIDIA GPU it is said once (a notice) and then stays quiet.
 */
import { GpuTelemetry, type GpuSample } from '../../platform/hardware';
import type { TelemetrySample } from '#shared/ipc/contract';
import type { CoreEvents } from './emitter';

const FLUSH_MS = 1000;

function toTelemetrySample(s: GpuSample, memoryTotalBytes: number | null): TelemetrySample {
  return {
    at: s.t,
    gpu: s.gpu,
    utilization: s.utilization,
    memoryUsedBytes: s.memoryUsedBytes,
    memoryTotalBytes,
    powerWatts: s.powerWatts,
    temperatureC: s.temperatureC,
  };
}

export class TelemetryControl {
  private telemetry: GpuTelemetry | null = null;
  private pending: TelemetrySample[] = [];
  private timer: ReturnType<typeof setInterval> | null = null;
  private saidUnavailable = false;

  constructor(
    private readonly events: CoreEvents,
    private readonly opts: { nvidiaSmi?: string; intervalMs?: number; vramOf: (gpu: number) => number | null },
  ) {}

  /** The running telemetry loop, for the engine to record samples into the session. */
  current(): GpuTelemetry | null {
    return this.telemetry;
  }

  start(): void {
    if (this.telemetry) return;
    const t = new GpuTelemetry({ nvidiaSmi: this.opts.nvidiaSmi, intervalMs: this.opts.intervalMs });
    this.telemetry = t;
    t.on('sample', (s) => this.pending.push(toTelemetrySample(s, this.opts.vramOf(s.gpu))));
    t.on('unavailable', (reason) => {
      if (this.saidUnavailable) return;
      this.saidUnavailable = true;
      this.events.emit('notice', {
        level: 'info',
        message: `No live GPU telemetry: ${reason.replace(/^no (NVIDIA )?GPU telemetry: /i, '')}.`,
      });
    });
    t.start();
    this.timer = setInterval(() => this.flush(), FLUSH_MS);
  }

  private flush(): void {
    if (this.pending.length === 0) return;
    const batch = this.pending;
    this.pending = [];
    this.events.emit('telemetry', batch);
  }

  stop(): void {
    this.telemetry?.stop();
    this.telemetry?.removeAllListeners();
    this.telemetry = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.flush();
  }
}
