/**
 * The whole desktop flow in real headless Chromium against the real core: start the simulator
 * from the Server view, run a 2 × 3 matrix at sim speed, watch the heatmap fill in, see an
 * Over capacity and a Looped cell with their words, save, reopen, export Markdown.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../src-main/platform/session/read';
import { webTest } from '../helpers/fixtures';
import { coreSession, expectResultsMatchReport, chooseExport } from '../helpers/results-dom';
import { FAKE_NVIDIA_SMI } from '../helpers/fake-servers';
import { hasChromium, shot } from './browser';
import { setChips } from '../helpers/run-view';

// GPU detection and telemetry replay the real H200 captures through the fake nvidia-smi.
const it = webTest.override(
  'bridgeOptions',
  { scope: 'file' },
  { core: { stopTimeoutMs: 8000, nvidiaSmi: FAKE_NVIDIA_SMI, telemetryIntervalMs: 250 } },
);

async function fill(page: Page, id: string, value: string): Promise<void> {
  const el = page.locator(`#${id}`);
  await el.fill(value);
}

describe.skipIf(!hasChromium)('desktop flow in Chromium with the simulator', () => {
  it('starts the simulator from the Server view and shows it ready with its KV budget', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    expect(await page.locator('input[name="kind"][value="simulator"]').isChecked()).toBe(true);
    await fill(page, 'srv-simSpeed', '10');
    await fill(page, 'srv-simLoad', '1');
    // 32K is 32,768 tokens as vLLM reads it (32k would be 32,000).
    await fill(page, 'srv-maxModelLen', '32K');
    await fill(page, 'srv-gpuMemoryUtilization', '0.15');
    await fill(page, 'srv-apiKey', 'sk-test-secret-123');
    // Loop switch: from the 150th token (late enough that every request of a cell is in flight), requests at 8K × 2 repeat a passage.
    await fill(page, 'srv-simFlags', '--sim-loop-after 150\n--sim-loop-contexts 8K\n--sim-loop-concurrency 2');
    const preview = page.getByTestId('command-preview');
    await expect
      .poll(() => preview.textContent())
      .toMatch(
        /speedmatrix sim serve microsoft\/Fara1\.5-4B .*--max-model-len 32768 .*--api-key '?<redacted>'? .*--sim-speed 10/,
      );
    expect(await preview.textContent()).not.toContain('sk-test-secret-123');
    await page.getByTestId('start-server').click();
    await page.locator('[data-testid="server-status"][data-state="starting"]').waitFor();
    await page.getByTestId('server-elapsed').waitFor();
    await shot(page, '20-server-starting', false);
    await page.locator('[data-testid="server-status"][data-state="ready"]').waitFor({ timeout: 60_000 });
    const ready = await page.getByTestId('server-ready').innerText();
    expect(ready).toMatch(/max_model_len\s+32,768 tokens \(32K\)/);
    expect(ready).toMatch(/KV budget\s+[\d,]+ tokens · from the server (log|metrics)/);
    // The start, phase by phase as the simulator's vLLM-shaped log showed them (1 s of load: half of it weights). A
    // phase is timed between log lines as they arrive, so a line read late on a busy machine shortens the one after.
    expect(ready).toMatch(
      /Server start\s+[\d.]+ s \(Process start [\d.]+ s · Weights loaded (0\.[3-9]|[1-9][\d.]*) s · Compilation \(torch\.compile\) [\d.]+ s · KV cache profiling [\d.]+ s · CUDA graph capture [\d.]+ s · API server ready [\d.]+ s\)/,
    );
    await expect.poll(() => page.getByTestId('server-log').textContent()).toMatch(/Application startup complete/);
    expect(await page.getByTestId('server-log').textContent()).not.toContain('sk-test-secret-123');
    await shot(page, '21-server-ready');
  }, 90_000);

  it('shows the GPU card and its live telemetry while the server runs', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Hardware' }).click();
    const card = page.getByTestId('gpu-card');
    await card.waitFor();
    const text = await card.innerText();
    expect(text).toMatch(/NVIDIA H200/);
    expect(text).toMatch(/VRAM\s+\d+ GB/);
    expect(text).toMatch(/Compute capability\s+9\.0/);
    expect(text).toMatch(/Power limit\s+700 W/);
    await card.getByTestId('telemetry').waitFor({ timeout: 20_000 });
    expect(await card.getByTestId('telemetry').innerText()).toMatch(
      /Utilization \d+%[\s\S]*Power \d+ W[\s\S]*Temperature \d+ °C/,
    );
    await shot(page, '21b-hardware-telemetry');
  });

  it('plans a 2 × 3 matrix with the over-capacity cell greyed before anything runs', async ({ app: { page } }) => {
    await page.locator('nav button', { hasText: 'Run' }).click();
    await setChips(page, 'contexts', ['8k', '16k']);
    await setChips(page, 'concurrency', ['1', '2', '4']);
    await fill(page, 'run-seconds', '20');
    await fill(page, 'run-maxout', '2048');
    const summary = page.getByTestId('plan-summary');
    await expect
      .poll(() => summary.textContent(), { timeout: 10_000 })
      .toMatch(/^5 of 6 cells to run · prefill at 8K, 16K · about .+ in total$/);
    const over = page.locator('[data-testid="heatmap"] [data-cell="16384x4"]');
    expect(await over.getAttribute('data-status')).toBe('over-capacity');
    expect(await over.innerText()).toBe('Over capacity');
    expect(await over.locator('.hm-btn').getAttribute('title')).toMatch(/exceeds the KV cache budget/);
    expect(await page.getByTestId('plan-reasons').innerText()).toMatch(
      /16K × 4: Over capacity — 4 × \(16K \+ 2,048\) = 73,728 tokens exceeds the KV cache budget/,
    );
    await shot(page, '22-run-plan');
  });

  it('runs it, filling the heatmap cell by cell, with Looped and Over capacity in words', async ({ app: { page } }) => {
    await page.getByTestId('start-run').click();
    const heat = page.getByTestId('heatmap');
    // Live: the running cell is highlighted with its live figures.
    await heat.locator('[data-status="running"]').waitFor({ timeout: 60_000 });
    await expect.poll(async () => heat.locator('[data-kind="value"]').count(), { timeout: 90_000 }).toBeGreaterThan(0);
    await shot(page, '23-run-live');
    await page.locator('[data-testid="run-phase"][data-phase="done"]').waitFor({ timeout: 150_000 });
    // Four measured cells with figures (Valid, or Requests queued when the busy 2-core machine made
    // the simulator's queue show at the window start), one Looped, one Over capacity.
    expect(await heat.locator('[data-kind="value"]').count()).toBe(4);
    expect(await heat.locator('[data-cell="8192x2"]').innerText()).toBe('Looped');
    expect(await heat.locator('[data-cell="16384x4"]').innerText()).toBe('Over capacity');
    expect(await heat.locator('[data-cell="8192x1"]').innerText()).toMatch(
      /^[\d,.K]+ tok\/s\s+[\d,]+ ms TTFT(\s+Requests queued)?$/,
    );
    expect(await page.getByTestId('heatmap-legend').innerText()).toMatch(/Looped: the model kept repeating/);
    expect(await page.getByTestId('run-progress').innerText()).toMatch(/5 of 5 cells \(100%\)/);
    await page.getByTestId('prefill-chart').locator('svg').first().waitFor();
    await shot(page, '24-run-done');
  }, 240_000);

  it('shows the results like the reference report, with the looped cell’s evidence', async ({
    bridge,
    app: { page },
  }) => {
    await page.locator('nav button', { hasText: 'Results' }).click();
    await page.getByTestId('report').waitFor();
    // The report's title: the model's name (not the served name) on the GPU it ran on.
    expect(await page.getByTestId('report-title').textContent()).toMatch(/^Fara1\.5-4B on /);
    await expect.poll(() => page.getByTestId('measurements').locator('tbody tr').count()).toBe(2 + 6);
    await expectResultsMatchReport(page, await coreSession(bridge.core));
    expect(await page.getByTestId('file-title').textContent()).toBe('Unsaved session •');
    await page.locator('[data-testid="heatmap"] [data-cell="8192x2"] button').click();
    await page.getByTestId('loop-evidence').waitFor();
    expect((await page.getByTestId('loop-evidence').textContent())?.length).toBeGreaterThan(10);
    await page.locator('[data-testid="heatmap"] [data-cell="8192x1"] button').click();
    await page.getByTestId('ttft-hist').locator('svg').first().waitFor();
    await shot(page, '25-results');
  });

  it('asks before another file replaces the unsaved results', async ({ app: { page } }) => {
    let asked = '';
    page.once('dialog', (d) => {
      asked = d.message();
      void d.dismiss();
    });
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{}') });
    await expect.poll(() => asked).toMatch(/The open results are not saved\. Open other\.json anyway\?/);
    expect(await page.getByTestId('open-error').count()).toBe(0);
    expect(await page.getByTestId('file-title').textContent()).toBe('Unsaved session •');
  });

  it('saves, reopens from Open recent, and exports Markdown', async ({ bridge, app: { page } }) => {
    await page.getByTestId('save').click();
    await expect.poll(() => page.getByTestId('file-title').textContent()).toMatch(/\.speedmatrix\.json$/);
    const name = (await page.getByTestId('file-title').textContent()) ?? '';
    const saved = join(bridge.dialogs.saveDir, name);
    const read = await readSessionFile(saved);
    expect(read.ok).toBe(true);
    if (!read.ok) return;
    const statuses = read.data.cells.map((c) => (c.status === 'queued' ? 'valid' : c.status)).sort();
    expect(statuses).toEqual(['looped', 'over-capacity', 'valid', 'valid', 'valid', 'valid']);
    expect(readFileSync(saved, 'utf8')).not.toContain('sk-test-secret-123');

    // Reopen: forget it by opening another file, then pick it from the recent list.
    await page
      .getByTestId('file-input')
      .setInputFiles({ name: 'other.json', mimeType: 'application/json', buffer: Buffer.from('{}') });
    await page.getByTestId('open-error').waitFor();
    await page.locator('summary', { hasText: 'Open recent' }).click();
    await page.getByTestId('recent-files').locator('button', { hasText: name }).click();
    await expect.poll(() => page.getByTestId('open-error').count()).toBe(0);
    expect(await page.getByTestId('file-title').textContent()).toBe(name);
    expect(await page.locator('[data-testid="heatmap"] [data-cell="8192x2"]').innerText()).toBe('Looped');

    await chooseExport(page, 'export-markdown');
    await page.getByTestId('last-export').waitFor();
    const md = join(bridge.dialogs.saveDir, name.replace(/\.speedmatrix\.json$/, '.md'));
    await expect.poll(() => existsSync(md)).toBe(true);
    const text = readFileSync(md, 'utf8');
    expect(text).toMatch(/Looped/);
    expect(text).toMatch(/Over capacity/);
    await chooseExport(page, 'export-pdf');
    const pdf = md.replace(/\.md$/, '.pdf');
    await expect.poll(() => existsSync(pdf), { timeout: 60_000 }).toBe(true);
    expect(readFileSync(pdf).subarray(0, 5).toString()).toBe('%PDF-');
    await shot(page, '26-saved-exported');
  }, 120_000);

  it('stops the server cleanly from the Server view', async ({ app: { page, problems } }) => {
    await page.locator('nav button', { hasText: 'Server' }).click();
    await shot(page, '27-before-stop');
    await page.getByTestId('stop-server').click();
    await page.locator('[data-testid="server-status"][data-state="exited"]').waitFor({ timeout: 30_000 });
    expect(problems).toEqual([]);
  }, 60_000);
});
