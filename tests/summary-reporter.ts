/**
 * Prints one plain closing line, "N passed (M only on retry), N failed, N skipped", so CI logs
 * (and people) read the outcome at a glance; a pass that needed a retry is counted apart, never
 * hidden among plain passes. A skipped suite says why in its name ("not run: <reason>"); a skip
 * whose reason is not in EXPECTED_SKIPS (or that gives none) fails the run, so a suite cannot
 * silently stop running in CI.
 */
import type { Reporter, TestCase, TestModule, Vitest } from 'vitest/node';

/** Reasons a suite may be skipped without failing the run: whether an Electron binary is installed here. */
export const EXPECTED_SKIPS: readonly RegExp[] = [
  /^not run: no Electron binary\b/,
  /^not run: an Electron binary is installed here$/,
];

/** The "not run: ..." reason a skipped test's suite names give, or null. */
export function skipReason(fullName: string, note: string | undefined): string | null {
  if (note) return note;
  const m = /not run: [^()>]+/.exec(fullName);
  return m ? m[0].trim() : null;
}

function counts(modules: ReadonlyArray<TestModule>) {
  let passed = 0;
  let retried = 0;
  let failed = 0;
  const unexpected = new Map<string, number>();
  let skipped = 0;
  for (const m of modules) {
    for (const t of m.children.allTests()) {
      const result = t.result();
      if (result.state === 'passed') {
        passed++;
        if ((t.diagnostic()?.retryCount ?? 0) > 0) retried++;
      } else if (result.state === 'failed') failed++;
      else {
        skipped++;
        const reason = skipReason(t.fullName, noteOf(t));
        if (reason === null || !EXPECTED_SKIPS.some((re) => re.test(reason))) {
          const key = `${m.moduleId.replace(/^.*?\/tests\//, 'tests/')}: ${reason ?? 'skipped without a reason'}`;
          unexpected.set(key, (unexpected.get(key) ?? 0) + 1);
        }
      }
    }
    // A file that failed outside its tests (an import, a beforeAll) counts once, whatever its tests show.
    if (m.state() === 'failed' && [...m.children.allTests()].every((t) => t.result().state !== 'failed')) failed++;
  }
  return { passed, retried, failed, skipped, unexpected };
}

const noteOf = (t: TestCase): string | undefined => {
  const r = t.result() as { note?: string };
  return r.note;
};

export default class SummaryReporter implements Reporter {
  private nameFilter = false;

  onInit(vitest: Vitest): void {
    // A run filtered by test name (-t) skips the rest on purpose: only skips of a whole run are judged.
    this.nameFilter = vitest.config.testNamePattern !== undefined;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const c = counts(modules);
    const judged = !this.nameFilter && process.env.SPEEDMATRIX_ALLOW_SKIPS !== '1';
    if (judged) for (const [where, n] of c.unexpected) process.stdout.write(`unexpected skip (${n}): ${where}\n`);
    const retried = c.retried ? ` (${c.retried} only on retry)` : '';
    process.stdout.write(
      `\n${c.passed} passed${retried}, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}\n`,
    );
    if (judged && c.unexpected.size) {
      process.stdout.write('A skip nobody expected fails the run (tests/summary-reporter.ts, EXPECTED_SKIPS).\n');
      process.exitCode = 1;
    }
  }
}
