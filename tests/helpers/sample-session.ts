/**
 * A realistic session for tests, with figures taken from the reference report
 * (Fara1.5-4B on RTX PRO 6000, 8K row). Built through the real schema, so it is valid.
 */
import { foldRepetition } from '../../src-main/engine/bench/repetitions';
import { createSession } from '../../src-main/platform/session/create';
import { cellKey } from '#shared/cell-key';
import type { DecodeCell, Session } from '#shared/session/schema';

const stats = (p50: number) => ({ p50, p90: p50 * 1.2, p99: p50 * 1.5, mean: p50 * 1.05 });

export function sampleCell(context: number, concurrency: number, over: Partial<DecodeCell> = {}): DecodeCell {
  return {
    context,
    concurrency,
    status: 'valid',
    reason: null,
    promptTokens: context,
    totalTokensPerSecond: 141.4 * concurrency,
    perRequestTokensPerSecond: 141.4,
    ttft: stats(0.037),
    timeBetweenTokens: stats(0.007),
    avgActiveRequests: concurrency,
    completedRequests: 1,
    outputTokens: 4243 * concurrency,
    windowSeconds: 30,
    readinessTimedOut: false,
    maxWaitingSeen: 0,
    evidence: null,
    requests: {
      sentAt: [-2.5],
      firstTokenAt: [-2.463],
      lastTokenAt: [29.9],
      outputTokens: [4243],
      windowTokens: [4243],
      promptTokens: [context],
      outcome: ['cancelled'],
    },
    telemetry: null,
    startedAt: '2026-11-29T10:00:00.000Z',
    finishedAt: '2026-11-29T10:00:40.000Z',
    ...over,
  };
}

export function sampleSession(): Session {
  return createSession({
    simulated: false,
    hardware: {
      gpuType: 'Discrete GPU',
      gpus: [
        {
          index: 0,
          vendor: 'nvidia',
          name: 'RTX PRO 6000 Blackwell Server Edition',
          uuid: null,
          vramBytes: 97887 * 1024 * 1024,
          driver: '580.95.05',
          cuda: '13.0',
          computeCapability: '12.0',
          powerLimitWatts: 600,
          busId: '00000000:01:00.0',
        },
      ],
      cpu: { model: 'AMD EPYC 9355', cores: 32, threads: 64 },
      ramBytes: 512 * 1024 ** 3,
      os: { platform: 'linux', distro: 'Ubuntu', release: '24.04', kernel: '6.8.0', arch: 'x64' },
      notes: [],
    },
    engine: {
      name: 'vllm',
      version: '0.30.1rc1.dev452+g73a583112',
      commit: '73a5831127a9',
      quantization: 'BF16',
      dtype: 'bfloat16',
      backend: 'cuda',
      build: 'cuda-13.2',
      repository: 'github.com/vllm-project/vllm',
    },
    server: {
      kind: 'vllm-native',
      url: 'http://127.0.0.1:8000',
      argv: ['vllm', 'serve', 'microsoft/Fara1.5-4B', '--served-model-name', 'fara', '--api-key', '<redacted>'],
      env: { MAX_JOBS: '2' },
      display: 'env MAX_JOBS=2 vllm serve microsoft/Fara1.5-4B --served-model-name fara --api-key <redacted>',
      model: 'microsoft/Fara1.5-4B',
      servedModel: 'fara',
      revision: 'main',
      maxModelLen: 262144,
    },
    runConfig: {
      contexts: [8192, 16384],
      concurrency: [1, 2],
      prefillContexts: [8192, 16384],
      secondsPerMeasurement: 30,
      maxOutputTokens: 4096,
      decodeTestMode: 'fixed-duration',
      prefillMode: 'during-decode-warmup',
      tokenTargeting: 'exact',
      benchmarkTool: 'SpeedMatrix 0.1.0',
      runTag: 'k3f9x2',
    },
    kvBudget: { tokens: 1_066_608, source: 'metrics-cache-config', detail: 'kv_cache_size_tokens' },
    prefill: [
      { context: 8192, status: 'valid', promptTokens: 8192, ttftSeconds: 0.236, tokensPerSecond: 34_600 },
      { context: 16384, status: 'valid', promptTokens: 16384, ttftSeconds: 0.474, tokensPerSecond: 34_200 },
    ],
    cells: [
      sampleCell(8192, 1),
      sampleCell(8192, 2),
      sampleCell(16384, 1),
      sampleCell(16384, 2, {
        status: 'looped',
        reason: 'a stream repeated a 212-character passage 19 times',
        totalTokensPerSecond: null,
        perRequestTokensPerSecond: null,
        ttft: null,
        timeBetweenTokens: null,
        evidence: {
          loopExcerpt: 'and the river kept running, ',
          loopPeriodChars: 212,
          loopStream: 'content',
          logLines: [],
        },
      }),
    ],
    serverLog: {
      lines: ['(APIServer pid=1) INFO 08-19 14:58:41 [api_server.py:1639] vLLM API server version 0.30.1'],
      truncated: false,
    },
    events: [{ at: '2026-11-29T10:00:00.000Z', level: 'info', message: 'run started' }],
  });
}

/** A cell measured once per total, folded as a run with --repeat folds it. */
export function repeatedCell(context: number, concurrency: number, totals: number[]): DecodeCell {
  let cell: DecodeCell | undefined;
  totals.forEach((t, i) => {
    cell = foldRepetition(cell, sampleCell(context, concurrency, { totalTokensPerSecond: t }), i + 1, totals.length);
  });
  return cell!;
}

/** The sample session measured three times per cell: the given cells' totals by cell key, the others once. */
export function repeatedSession(cells: Record<string, number[]>): Session {
  const s = sampleSession();
  s.runConfig.repeat = 3;
  s.cells = s.cells.map((c) => {
    const totals = cells[cellKey(c)];
    return totals ? repeatedCell(c.context, c.concurrency, totals) : c;
  });
  return s;
}

/** A cell's GPU telemetry at a steady power draw (null: none recorded), its energy per token from `tokensPerSecond`. */
export function powerTelemetry(watts: number | null, tokensPerSecond: number): DecodeCell['telemetry'] {
  if (watts === null) return null;
  return {
    avgGpuUtilization: 0.9,
    avgPowerWatts: watts,
    avgSmClockHz: null,
    avgMemoryUsedBytes: null,
    avgTemperatureC: null,
    throttleReasons: [],
    energyPerTokenJoules: watts / tokensPerSecond,
  };
}
