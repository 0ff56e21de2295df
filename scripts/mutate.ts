/**
 * Mutation testing one rule module at a time, against its results committed in tests/mutation/
 * (one file per module, README, "Mutation testing"). For each module of
 * stryker.config.mjs's `mutate` list whose source, or a test file that covered it, differs from
 * what that file recorded, Stryker runs on that module alone in incremental mode (only the mutants
 * in changed code, or covered by changed tests, are tested again) and fails under the floor
 * (thresholds.break), so every module keeps its own score. The results are written back.
 *
 *   node --import tsx scripts/mutate.ts            the modules that changed, or have no results yet
 *   node --import tsx scripts/mutate.ts --recorded-only   the same, leaving out (and naming) those with none (CI)
 *   node --import tsx scripts/mutate.ts FILE...    these modules, changed or not (incremental)
 *   node --import tsx scripts/mutate.ts --force FILE...  these modules, every mutant again
 *   node --import tsx scripts/mutate.ts --scores   print each module's recorded score, and whether it changed since
 *
 * Stryker's incremental mode sees only the mutated module and the test files: a change in a helper
 * or a module the rule imports is not a reason to test again (run that module by name).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import config from '../stryker.config.mjs';

const ROOT = resolve(import.meta.dirname, '..');
/** Where a module's results are kept: tests/mutation/<its file name>.json (the names are unique, checked in main). */
const resultsOf = (module: string): string => join(ROOT, 'tests/mutation', `${basename(module)}.json`);
const FLOOR: number = config.thresholds.break;

interface Mutant {
  id: string;
  status: string;
  statusReason?: string;
  coveredBy?: string[];
  killedBy?: string[];
  [k: string]: unknown;
}
interface TestDefinition {
  id: string;
  name: string;
  [k: string]: unknown;
}
interface Report {
  files: Record<string, { source: string; mutants: Mutant[]; [k: string]: unknown }>;
  testFiles?: Record<string, { source?: string; tests: TestDefinition[] }>;
  [k: string]: unknown;
}

const read = (path: string): Report | null =>
  existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as Report) : null;

/** A module's score as Stryker counts it: killed and timed out over all but the ignored and the ones that do not compile. */
export function score(mutants: readonly Mutant[]): number {
  const counted = mutants.filter((m) => !['Ignored', 'CompileError', 'RuntimeError'].includes(m.status));
  const detected = counted.filter((m) => m.status === 'Killed' || m.status === 'Timeout');
  return counted.length ? (100 * detected.length) / counted.length : 100;
}

/** The test files whose tests covered any of a module's mutants. */
function coveringFiles(report: Report, module: string): string[] {
  const ids = new Set(report.files[module]?.mutants.flatMap((m) => m.coveredBy ?? []) ?? []);
  return Object.entries(report.testFiles ?? {})
    .filter(([, f]) => f.tests.some((t) => ids.has(t.id)))
    .map(([path]) => path);
}

const current = (path: string): string | null =>
  existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : null;

/** True when the module, or a test file that covered it, is not as its results recorded it. */
export function changed(module: string): boolean {
  const report = read(resultsOf(module));
  const recorded = report?.files[module];
  if (!report || !recorded || recorded.source !== current(module)) return true;
  return coveringFiles(report, module).some((t) => report.testFiles?.[t]?.source !== current(t));
}

/** What a run keeps of one module: its mutants (without the reasons, whole assertion messages) and the test files that covered them. */
export function trim(run: Report, module: string): Report {
  const covering = new Set(coveringFiles(run, module));
  return {
    // Stryker's options and branding stay out: only the results are read back.
    schemaVersion: run.schemaVersion,
    thresholds: run.thresholds,
    files: {
      [module]: { ...run.files[module], mutants: run.files[module].mutants.map(({ statusReason: _, ...m }) => m) },
    },
    testFiles: Object.fromEntries(Object.entries(run.testFiles ?? {}).filter(([path]) => covering.has(path))),
  };
}

/** Runs Stryker on one module from its recorded results and records the new ones; returns whether it held the floor. */
function run(module: string, force: boolean): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'sm-mutate-'));
  const seed = join(dir, 'incremental.json');
  if (existsSync(resultsOf(module))) copyFileSync(resultsOf(module), seed);
  const args = ['stryker', 'run', '--mutate', module, '--incremental', '--incrementalFile', seed];
  if (force) args.push('--force');
  const r = spawnSync('npx', args, { cwd: ROOT, stdio: 'inherit' });
  const result = read(seed);
  if (result?.files[module]) writeFileSync(resultsOf(module), `${JSON.stringify(trim(result, module))}\n`);
  rmSync(dir, { recursive: true, force: true });
  return r.status === 0;
}

function main(argv: string[]): number {
  const modules: string[] = config.mutate;
  const names = modules.map((m) => basename(m));
  const twice = names.filter((n, i) => names.indexOf(n) !== i);
  if (twice.length) {
    console.error(`mutate: two modules share the file name ${twice[0]}; their results would share a file.`);
    return 2;
  }
  if (argv[0] === '--scores') {
    for (const m of modules) {
      const f = read(resultsOf(m))?.files[m];
      const stale = f && changed(m) ? ' (changed since: run it again)' : '';
      console.log(`${m}: ${f ? `${score(f.mutants).toFixed(1)}% of ${f.mutants.length}${stale}` : 'not measured'}`);
    }
    return 0;
  }
  const force = argv[0] === '--force';
  // --recorded-only (CI): leave out modules with no results yet, saying so; measuring one whole can take longer than CI's share.
  const recordedOnly = argv.includes('--recorded-only');
  const named = argv.filter((a) => a !== '--force' && a !== '--recorded-only');
  const unknown = named.filter((m) => !modules.includes(m));
  if (unknown.length) {
    console.error(`mutate: ${unknown.join(', ')} is not in stryker.config.mjs's mutate list.`);
    return 2;
  }
  const unrecorded = named.length ? [] : modules.filter((m) => !existsSync(resultsOf(m)));
  if (recordedOnly && unrecorded.length)
    console.warn(
      `mutate: not measured yet, left out: ${unrecorded.join(', ')} (run npm run mutate -- FILE and commit tests/mutation/).`,
    );
  const todo = named.length ? named : modules.filter((m) => changed(m) && !(recordedOnly && unrecorded.includes(m)));
  if (!todo.length) console.log('mutate: no rule module or its tests changed since the recorded results.');
  const failed = todo.filter((m) => {
    console.log(`mutate: ${m}`);
    return !run(m, force);
  });
  if (failed.length) console.error(`mutate: below the ${FLOOR}% floor or failed: ${failed.join(', ')}`);
  return failed.length ? 1 : 0;
}

if (process.argv[1] && resolve(process.argv[1]) === resolve(import.meta.filename))
  process.exitCode = main(process.argv.slice(2));
