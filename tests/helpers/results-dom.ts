/**
 * What the app's Results view shows, read back from the real page, next to what the report
 * model (the Markdown, HTML and PDF exports' source) says for the same session. The web suites
 * use it to check the two never drift.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import type { AppCore } from '../../src-main/hosts/app-core';
import { buildReportModel } from '#shared/report/report-model';
import type { Session } from '#shared/session/schema';

export interface ResultsOnScreen {
  title: string;
  blocks: { title: string; rows: { label: string; value: string }[] }[];
  header: string[];
  rows: string[][];
}

export async function readResults(page: Page): Promise<ResultsOnScreen> {
  return page.evaluate(() => {
    const text = (e: Element | null) => (e?.textContent ?? '').trim();
    const blocks = [...document.querySelectorAll('[data-testid^="block-"]')].map((b) => ({
      title: text(b.querySelector('h3')),
      rows: [...b.querySelectorAll('.row')].map((r) => ({
        label: text(r.querySelector('dt')),
        value: text(r.querySelector('dd')),
      })),
    }));
    const table = document.querySelector('[data-testid="measurements"]');
    return {
      title: text(document.querySelector('[data-testid="report-title"]')),
      blocks,
      // The header buttons carry a sort arrow once sorted; the label is the text before it.
      header: [...(table?.querySelectorAll('thead th') ?? [])].map((th) => text(th).replace(/ [▲▼]$/, '')),
      rows: [...(table?.querySelectorAll('tbody tr') ?? [])].map((tr) => [...tr.querySelectorAll('td')].map(text)),
    };
  });
}

/** The session the core holds now, as the page received it. */
export async function coreSession(core: AppCore): Promise<Session> {
  const r = await core.invoke('session:get', []);
  if (!r.ok || !r.data.session)
    throw new Error(`the core holds no session: ${r.ok ? 'none open' : JSON.stringify(r.error)}`);
  return r.data.session;
}

/** The Results view (unsorted) says exactly what the report model says: title, blocks, measurements. */
export async function expectResultsMatchReport(page: Page, session: Session): Promise<void> {
  const report = buildReportModel(session);
  const screen = await readResults(page);
  expect(screen.title).toBe(report.title);
  expect(screen.blocks).toEqual(report.blocks.map((b) => ({ title: b.title, rows: b.rows })));
  expect(screen.header).toEqual(report.measurements.header);
  expect(screen.rows).toEqual(report.measurements.rows);
}

/** Results > Export > the item with this test id (export-markdown, export-pdf, …): the menu opens first. */
export async function chooseExport(page: Page, testId: string): Promise<void> {
  const menu = page.getByTestId('export-menu');
  if (!(await menu.evaluate((d: HTMLDetailsElement) => d.open))) await menu.locator('summary').click();
  await page.getByTestId(testId).click();
}
