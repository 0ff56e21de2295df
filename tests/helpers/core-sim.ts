/**
 * The app core on the small simulator that the core's process suites and the Chromium suites
 * share: the Server view's defaults at a 10x clock, a 0.3 s model load and a small KV cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type AppCore, createAppCore } from '../../src-main/hosts/app-core';

/** A machine with no GPU: the core's hardware detection without running nvidia-smi. */
export const noGpu = async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] });

/** Resolves once cond() holds, checking every 50 ms; throws after ms. */
export async function until(cond: () => boolean, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts the small simulator from the Server view's defaults; maxModelLen as the form takes it ("16K"). */
export async function startSmallSim(core: AppCore, maxModelLen: string): Promise<void> {
  const d = await core.invoke('server:defaults', []);
  if (!d.ok) throw new Error(d.error);
  const started = await core.invoke('server:start', [
    { ...d.data, simSpeed: 10, simLoadSeconds: 0.3, maxModelLen, gpuMemoryUtilization: '0.3' },
  ]);
  if (!started.ok) throw new Error(started.error);
}

/** The server's state once it has left "starting". */
async function settledState(core: AppCore): Promise<string> {
  for (;;) {
    const snap = await core.invoke('server:snapshot', []);
    const state = snap.ok ? snap.data.state : 'failed';
    if (state !== 'starting') return state;
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface CoreOnSim {
  core: AppCore;
  dir: string;
  close(): Promise<void>;
}

/** A bridge-host app core in its own data folder, its small simulator ready. */
export async function coreOnReadySim(prefix: string, maxModelLen: string): Promise<CoreOnSim> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const core = createAppCore({ host: 'bridge', dataDir: dir, detectHardware: noGpu, stopTimeoutMs: 8000 });
  const close = async () => {
    await core.dispose();
    rmSync(dir, { recursive: true, force: true });
  };
  await startSmallSim(core, maxModelLen);
  const state = await settledState(core);
  if (state !== 'ready') {
    await close();
    throw new Error(`the simulator did not become ready: ${state}`);
  }
  return { core, dir, close };
}
