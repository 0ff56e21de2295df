/**
 * This machine's GPU is sampled only for a server on this machine: a remote server's cells
 * get no telemetry and no energy per token from the laptop's GPU. The GPU is the fake
 * nvidia-smi replaying the real H200 capture; the measuring worker is a stand-in speaking
 * the real worker protocol (a remote server cannot run here), finishing one cell whose
 * window covers several telemetry samples.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { unmeasuredCell } from '../../../src-main/engine/bench/cells';
import type { WorkerLauncher } from '../../../src-main/engine/bench/worker-transport';
import type { WorkerMessage } from '../../../src-main/engine/bench/worker-protocol';
import { startOrchestratedRun } from '../../../src-main/workflows/orchestrator/orchestrator';
import { REMOTE_NOT_RECORDED } from '../../../src-main/workflows/orchestrator/server-hardware';
import type { ServerTarget } from '../../../src-main/engine/server/target';
import { FAKE_NVIDIA_SMI } from '../../helpers/fake-servers';

const WINDOW_MS = 3500;

/** Finishes one Valid 0 × 1 cell whose window is the last WINDOW_MS, then exits. */
const oneCellWorker: WorkerLauncher = {
  launch() {
    let emit: (m: WorkerMessage) => void = () => undefined;
    let exit: (code: number | null, signal: string | null) => void = () => undefined;
    return {
      send(m) {
        if (m.type !== 'start') return;
        setTimeout(() => {
          const endMs = Date.now();
          const cell = {
            ...unmeasuredCell(0, 1, 'valid', null),
            totalTokensPerSecond: 100,
            completedRequests: 3,
            outputTokens: 350,
            windowSeconds: WINDOW_MS / 1000,
          };
          emit({
            type: 'event',
            event: {
              type: 'cell-done',
              cell,
              index: 1,
              total: 1,
              etaSeconds: 0,
              window: { startMs: endMs - WINDOW_MS, endMs },
            },
          });
          emit({ type: 'finished', cancelled: false, serverLost: null, checksUnavailable: [], notes: [] });
          exit(0, null);
        }, WINDOW_MS + 500);
      },
      onMessage: (l) => (emit = l),
      onExit: (l) => (exit = l),
      kill: () => undefined,
    };
  },
};

function target(baseUrl: string): ServerTarget {
  return {
    baseUrl,
    model: 'm',
    maxModelLen: 32768,
    kvBudget: { tokens: 1_000_000, source: 'user', detail: null, maxConcurrency: null, tokensPerRequest: null },
    engine: {
      name: 'vllm',
      version: '0.11.0',
      commit: null,
      quantization: null,
      dtype: null,
      backend: null,
      build: null,
      repository: null,
    },
    engineKind: 'vllm',
    metricsAvailable: false,
    tokenize: null,
    launch: {
      kind: 'attach',
      url: baseUrl,
      argv: [],
      env: {},
      display: `attach ${baseUrl}`,
      model: null,
      servedModel: 'm',
      revision: null,
      maxModelLen: 32768,
    },
    simulated: false,
  };
}

async function runAgainst(baseUrl: string) {
  const dir = mkdtempSync(join(tmpdir(), 'sm-orch-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'run.speedmatrix.json');
  let detected = 0;
  const run = await startOrchestratedRun({
    server: { target: target(baseUrl) },
    config: { contexts: [0], concurrency: [1], prefillContexts: [], warmup: false },
    sessionFile: file,
    hardware: {
      detectLocal: async () => {
        detected++;
        return {
          gpuType: 'Discrete GPU',
          gpus: [],
          cpu: { model: 'This laptop', cores: 8, threads: 8 },
          ramBytes: 1e9,
          os: null,
          notes: [],
        };
      },
    },
    nvidiaSmi: FAKE_NVIDIA_SMI,
    launcher: oneCellWorker,
    onEvent: () => undefined,
  });
  const session = await run.handle.done;
  return { run, session, detected };
}

describe('GPU telemetry and energy follow the server’s placement', () => {
  it('a server on this machine: its GPU sampled during the window, energy per token computed, hardware detected here', async () => {
    const { run, session, detected } = await runAgainst('http://127.0.0.1:8000');
    expect(run.placement).toBe('this-machine');
    expect(detected).toBe(1);
    expect(session.hardware.cpu?.model).toBe('This laptop');
    expect(session.cells[0].telemetry?.avgPowerWatts).toBeGreaterThan(0);
    expect(session.cells[0].telemetry?.energyPerTokenJoules).toBeGreaterThan(0);
    expect(session.telemetry?.t.length).toBeGreaterThan(0);
  }, 30_000);

  it('a remote server: no sampling of this machine’s GPU, no energy per token, hardware not recorded', async () => {
    const { run, session, detected } = await runAgainst('http://192.0.2.10:8000');
    expect(run.placement).toBe('remote');
    expect(detected).toBe(0);
    expect(session.cells[0].telemetry).toBeNull();
    expect(session.telemetry ?? null).toBeNull();
    expect(session.checksUnavailable.filter((c) => /telemetry/i.test(c))).toEqual([]);
    expect(session.hardware).toMatchObject({
      gpus: [],
      cpu: null,
      ramBytes: null,
      os: null,
      notes: [REMOTE_NOT_RECORDED],
    });
    expect(run.notes.join('\n')).toMatch(/not on this machine: this machine's GPU is not sampled/);
  }, 30_000);
});
