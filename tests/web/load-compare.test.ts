/**
 * The app's Compare with load sessions, in real Chromium against the real core: a vLLM bench
 * serve run and a GuideLLM sweep (the peers' fixtures) side by side as the comparison model lays
 * them out, the Sessions table with each one's passes and answer, and a load session beside a matrix session refused in words.
 */
import { basename, join } from 'node:path';
import { describe, expect } from 'vitest';
import { compareSessions } from '#shared/report/compare-model';
import { LOAD_SESSION_COLUMNS } from '#shared/report/load-compare';
import { buildSweepModel } from '#shared/report/sweep-model';
import { importFile } from '../../src-main/workflows/importers';
import { webTest as it } from '../helpers/fixtures';
import { ROOT } from '../helpers/paths';
import { hasChromium, shot } from './browser';

const PEERS = join(ROOT, 'tests/fixtures/peers');
const files = [join(PEERS, 'vllm-bench-serve-rate4.json'), join(PEERS, 'guidellm-benchmarks.json')];

describe.skipIf(!hasChromium)('comparing load sessions in Chromium', () => {
  it('shows the verdict, the workloads and the passes matched by rate; refuses a matrix beside them', async ({
    app: { page, problems },
    bridge,
  }) => {
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.locator('nav button', { hasText: 'Results' }).click();
    bridge.dialogs.pathsQueue.push(files);
    await page.getByTestId('compare-sessions').click();
    const sessions = await Promise.all(files.map((f) => importFile(f)));
    const m = compareSessions(sessions.map((s) => (s.ok ? s.data : null)!));
    const passes = page.getByTestId('comparison-load-passes');
    await passes.waitFor({ timeout: 15_000 });
    expect(await page.getByTestId('comparison-verdict').innerText()).toContain(m.load!.verdicts[0]);
    expect(await passes.locator('thead th').allInnerTexts()).toEqual(m.load!.passes.header);
    expect(await passes.locator('tbody tr').count()).toBe(m.load!.passes.rows.length);
    expect(await page.getByTestId('ratio-map').count()).toBe(0);
    // The Sessions table gives each load session's own figures, by the one rule of load-compare.ts.
    const table = buildSweepModel(
      files.map((f, i) => ({
        variant: { settings: [], label: basename(f) },
        file: basename(f),
        session: sessions[i].ok ? sessions[i].data : null,
        failure: null,
      })),
    ).variants;
    expect(table.header).toEqual(LOAD_SESSION_COLUMNS);
    const listed = page.getByTestId('comparison-variants');
    expect(await listed.locator('thead th').allInnerTexts()).toEqual([...LOAD_SESSION_COLUMNS, 'Open']);
    const shown = await listed
      .locator('tbody tr')
      .evaluateAll((trs) =>
        trs.map((tr) => [...tr.querySelectorAll('th, td')].slice(0, -1).map((c) => (c as HTMLElement).innerText)),
      );
    expect(shown).toEqual(table.rows);
    expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBe(
      0,
    );
    await shot(page, '74-load-compare-1280');
    await page.emulateMedia({ colorScheme: 'dark' });
    await shot(page, '74-load-compare-1280-dark');
    await page.emulateMedia({ colorScheme: 'light' });

    // Refused in the page's words: the comparison shown stays.
    bridge.dialogs.pathsQueue.push([files[1], join(ROOT, 'tests/unit/importers/fixtures/fara-benchmark_results.json')]);
    await page.getByTestId('compare-sessions').click();
    await expect
      .poll(() => page.locator('body').innerText())
      .toContain(
        "guidellm-benchmarks.json is a load session and fara-benchmark_results.json is a matrix session: a load run's request rates and a matrix's cells measure different things. Compare load sessions with load sessions.",
      );
    expect(problems).toEqual([]);
  }, 60_000);
});
