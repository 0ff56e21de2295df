/**
 * `npm run bench`: every figure of SpeedMatrix's performance and measurement-truth benchmarks,
 * printed as one table and saved as JSON and Markdown under bench-results/ (latest.* and one
 * pair per run named by time and commit). About 15 minutes on a 2-core machine.
 *
 *   BENCH_QUICK=1 npm run bench            everything shrunk, about 3 minutes
 *   BENCH_SOAK_SECONDS=600 npm run bench   the full 10-minute worker soak
 *   BENCH_ONLY=absorb,truth npm run bench  a subset (ids below); figure ids given as arguments do the same
 *   npm run bench:client                   the client's figures: absorb, truth, many streams, orchestration
 *   npm run bench:site                     the results site: 500 sessions built, the index in Chromium
 * More knobs in tests/bench/lib/config.ts.
 */
import { absorbFigure } from './figures/absorb';
import { cliStartupFigure } from './figures/cli-startup';
import { manyStreamsFigure } from './figures/many-streams';
import { orchestrationFigure } from './figures/orchestration';
import { promptsFigure } from './figures/prompts';
import { sameServerFigure } from './figures/same-server';
import { rendererFigure } from './figures/renderer';
import { sessionFileFigure } from './figures/session-file';
import { simFigure } from './figures/sim';
import { siteFigure } from './figures/site';
import { soakFigure } from './figures/soak';
import { truthFigure } from './figures/truth';
import { BENCH } from './lib/config';
import { type Row, saveResults, toText } from './lib/table';

const FIGURES: Array<[string, () => Promise<Row[]>]> = [
  ['absorb', absorbFigure],
  ['truth', truthFigure],
  ['many', manyStreamsFigure],
  ['orchestration', orchestrationFigure],
  ['prompts', promptsFigure],
  ['renderer', rendererFigure],
  ['session', sessionFileFigure],
  ['soak', soakFigure],
  ['sim', simFigure],
  ['cli', cliStartupFigure],
  ['site', siteFigure],
  ['same-server', sameServerFigure],
];

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  const t0 = performance.now();
  const rows: Row[] = [];
  const errors: string[] = [];
  const only = process.argv.length > 2 ? process.argv.slice(2) : BENCH.only;
  const chosen = FIGURES.filter(([id]) => only.length === 0 || only.includes(id));
  const unknown = only.filter((id) => !FIGURES.some(([f]) => f === id));
  if (unknown.length) {
    process.stderr.write(`unknown figure ${unknown.join(', ')}; known: ${FIGURES.map(([id]) => id).join(', ')}\n`);
    process.exitCode = 2;
    return;
  }
  for (const [id, fig] of chosen) {
    const s0 = performance.now();
    process.stdout.write(`[bench] ${id}...\n`);
    try {
      rows.push(...(await fig()));
      process.stdout.write(`[bench] ${id} done in ${((performance.now() - s0) / 1000).toFixed(0)} s\n`);
    } catch (e) {
      const msg = `${id}: ${(e as Error).message}`;
      errors.push(msg);
      process.stderr.write(`[bench] ${msg}\n`);
    }
  }
  const custom = only.length > 0 || Object.keys(process.env).some((k) => k.startsWith('BENCH_'));
  const mode = BENCH.quick ? 'quick' : custom ? 'custom' : 'full';
  const wallSeconds = (performance.now() - t0) / 1000;
  process.stdout.write(`\n${toText(rows)}\n`);
  if (errors.length) process.stdout.write(`\nFigures that failed to run:\n${errors.map((e) => `  ${e}`).join('\n')}\n`);
  const md = saveResults(rows, { mode, startedAt, wallSeconds, errors });
  process.stdout.write(`\n${mode} run, ${wallSeconds.toFixed(0)} s. Saved ${md} (and .json).\n`);
  if (errors.length) process.exitCode = 1;
}

main().catch((e) => {
  process.stderr.write(`npm run bench failed: ${(e as Error).stack ?? e}\n`);
  process.exitCode = 1;
});
