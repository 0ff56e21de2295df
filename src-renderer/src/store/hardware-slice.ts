/** Detected hardware and a short rolling window of live GPU telemetry per GPU. */
import type { RemoteHardware, TelemetrySample } from '#shared/ipc/contract';
import type { Hardware } from '#shared/session/schema';
import type { SliceCreator } from './slice-creator';

/** About two minutes at one sample a second: enough for the small charts. */
export const TELEMETRY_WINDOW = 120;

export interface HardwareSlice {
  hardware: Hardware | null;
  hardwareLoading: boolean;
  hardwareError: string | null;
  telemetry: Record<number, TelemetrySample[]>;
  /** The Server view's remote host, as its own speedmatrix detected it; which host is loading, its error. */
  remoteHardware: RemoteHardware | null;
  remoteHardwareLoading: string | null;
  remoteHardwareError: { host: string; message: string } | null;
  setRemoteHardwareLoading(host: string): void;
  setRemoteHardware(h: RemoteHardware): void;
  setRemoteHardwareError(host: string, message: string): void;
  setHardwareLoading(): void;
  setHardware(h: Hardware): void;
  setHardwareError(message: string): void;
  addTelemetry(samples: TelemetrySample[]): void;
}

export const createHardwareSlice: SliceCreator<HardwareSlice> = (set) => ({
  hardware: null,
  hardwareLoading: false,
  hardwareError: null,
  telemetry: {},
  remoteHardware: null,
  remoteHardwareLoading: null,
  remoteHardwareError: null,
  setRemoteHardwareLoading: (host) => set({ remoteHardwareLoading: host, remoteHardwareError: null }),
  setRemoteHardware: (remoteHardware) => set({ remoteHardware, remoteHardwareLoading: null }),
  setRemoteHardwareError: (host, message) =>
    set({ remoteHardwareError: { host, message }, remoteHardwareLoading: null, remoteHardware: null }),
  setHardwareLoading: () => set({ hardwareLoading: true, hardwareError: null }),
  setHardware: (hardware) => set({ hardware, hardwareLoading: false, hardwareError: null }),
  setHardwareError: (hardwareError) => set({ hardwareError, hardwareLoading: false }),
  addTelemetry: (samples) =>
    set((s) => {
      if (samples.length === 0) return {};
      const next = { ...s.telemetry };
      for (const sample of samples) {
        const series = next[sample.gpu] ?? [];
        next[sample.gpu] = [...series, sample].slice(-TELEMETRY_WINDOW);
      }
      return { telemetry: next };
    }),
});
