/**
 * Figure 4, prompt preparation: exact prompts of 8K to 256K tokens through POST /tokenize
 * (the engine's exactPrompt), counting the calls and the seconds, first with no calibration
 * for this server (cold: it calibrates on the way) and then again with the calibration warm.
 */
import type { Agent, Dispatcher } from 'undici';
import { createHttp, type BenchHttp } from '../../../src-main/engine/bench/http';
import { exactPrompt } from '../../../src-main/engine/bench/prompts';
import { probeServer } from '../../../src-main/engine/server/probe';
import { fmtContext } from '#shared/report/format';
import { startSim } from '../../helpers/sim';
import { BENCH } from '../lib/config';
import { spread } from '../lib/stats';
import { row, type Row } from '../lib/table';

/** The same BenchHttp with its /tokenize requests counted. */
function counted(http: BenchHttp): { http: BenchHttp; calls: () => number } {
  let n = 0;
  const agent = http.agent.compose((dispatch) => (opts: Dispatcher.DispatchOptions, handler) => {
    if (opts.path === '/tokenize') n++;
    return dispatch(opts, handler);
  });
  return { http: { ...http, agent: agent as unknown as Agent }, calls: () => n };
}

export async function promptsFigure(): Promise<Row[]> {
  // A fresh port is a fresh calibration key: the first pass starts cold.
  const sim = await startSim({
    args: [
      '--served-model-name',
      'fara',
      '--max-model-len',
      '262144',
      '--gpu-memory-utilization',
      '0.83',
      '--disable-uvicorn-access-log',
    ],
  });
  try {
    const t = await probeServer({ baseUrl: sim.url });
    if (!t.ok) throw new Error(t.error);
    const { http, calls } = counted(createHttp(t.data));
    const f = '4 Prompt preparation';
    const rows: Row[] = [];
    for (const pass of ['cold', 'warm'] as const) {
      let totalCalls = 0;
      let totalSeconds = 0;
      const per: string[] = [];
      for (const target of BENCH.promptContexts) {
        const c0 = calls();
        const t0 = performance.now();
        const p = await exactPrompt(http, `[RUN bench ${pass} ${target}]`, target);
        const sec = (performance.now() - t0) / 1000;
        const n = calls() - c0;
        totalCalls += n;
        totalSeconds += sec;
        per.push(`${fmtContext(target)}: ${n} calls ${sec.toFixed(2)} s (${p.tokens.toLocaleString('en-US')} tok)`);
      }
      const range = `${fmtContext(BENCH.promptContexts[0])}–${fmtContext(BENCH.promptContexts[BENCH.promptContexts.length - 1])}`;
      rows.push(row(f, `${range}, calibration ${pass}: /tokenize calls`, spread([totalCalls]), 'calls', 0));
      rows.push(
        row(f, `${range}, calibration ${pass}: total time`, spread([totalSeconds]), 's', 2, undefined, per.join('; ')),
      );
    }
    await http.agent.close();
    return rows;
  } finally {
    await sim.stop();
  }
}
