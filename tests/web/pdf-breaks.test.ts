/**
 * A printed report never ends a page on a section's heading with its chart on the next: the
 * Prefill heading, its caption and its chart stay on one page wherever the heading falls. The
 * report is printed as the PDF export prints it (A4, 12 mm margins), with the space above the
 * heading grown step by step so the heading lands at every height of a page.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderHtmlReport } from '../../src-main/workflows/report/html';
import { sampleSession } from '../helpers/sample-session';
import { hasChromium, launchChromium } from './browser';

let browser: Browser;
let dir: string;

describe.skipIf(!hasChromium)('page breaks in a printed report', () => {
  beforeAll(async () => {
    browser = await launchChromium();
    dir = mkdtempSync(join(tmpdir(), 'sm-pdf-breaks-'));
  });
  afterAll(async () => {
    await browser?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('keeps the Prefill heading on the page of its chart wherever the heading falls', async () => {
    const page = await browser.newPage();
    await page.setContent(renderHtmlReport(sampleSession()), { waitUntil: 'load' });
    await page.emulateMedia({ media: 'print' });
    const apart: number[] = [];
    // About one A4 page of heights, in steps smaller than the heading and its caption together.
    for (let space = 0; space <= 1100; space += 20) {
      await page.evaluate((px) => {
        const h2 = [...document.querySelectorAll('h2')].find((h) => h.textContent === 'Prefill')!;
        let spacer = document.getElementById('spacer');
        if (!spacer) {
          spacer = document.createElement('div');
          spacer.id = 'spacer';
          h2.before(spacer);
        }
        spacer.style.height = `${px}px`;
      }, space);
      const file = join(dir, 'report.pdf');
      writeFileSync(
        file,
        await page.pdf({
          format: 'A4',
          printBackground: true,
          margin: { top: '12mm', bottom: '12mm', left: '12mm', right: '12mm' },
        }),
      );
      const pages = execFileSync('pdftotext', ['-layout', file, '-'], { encoding: 'utf8' }).split('\f');
      const withHeading = pages.find((p) => /^\s*Prefill\s*$/m.test(p));
      // The chart's axis title is on the heading's page.
      if (!withHeading || !withHeading.includes('Context length (tokens)')) apart.push(space);
    }
    expect(apart, 'spaces above the heading that left it apart from its chart').toEqual([]);
  }, 240_000);
});
