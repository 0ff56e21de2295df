/**
 * The reports' decode heatmap in a chosen metric: the model, the HTML it draws, and
 * `speedmatrix report --metric/--gpu-price` through the real CLI on real files.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { importFile } from '../../../src-main/workflows/importers/index';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { writeSessionFile } from '../../../src-main/platform/session/write';
import { metricOptions } from '../../../src-main/hosts/cli/commands/report';
import { MISSED_TARGET_FILL, decodeHeatmap, metricColor, sequentialColor } from '#shared/report/matrix-model';
import { buildReportModel } from '#shared/report/report-model';
import { parseTargets } from '#shared/report/slo';
import type { Session } from '#shared/session/schema';
import { runCli } from '../../helpers/cli';
import { SYNTHETIC_REPORT } from '../../helpers/paths';

const cli = (args: string[]) => runCli(args);

let dir: string;
let file: string;
let ref: Session;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'sm-metric-'));
  file = join(dir, 'ref.speedmatrix.json');
  const r = await importFile(SYNTHETIC_REPORT);
  if (!r.ok) throw new Error(r.error);
  ref = r.data;
  const saved = await writeSessionFile(file, ref);
  if (!saved.ok) throw new Error(saved.error);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (m: ReturnType<typeof buildReportModel>['decode'], context: number, conc: number) =>
  m.rows[m.contexts.indexOf(context)][m.concurrency.indexOf(conc)];

describe('report model in a metric', () => {
  it('keeps total tok/s unless told, as the imported report shows it', () => {
    const r = buildReportModel(ref);
    expect(at(r.decode, 8192, 16)).toMatchObject({ text: '1,200.0', detail: '450 ms TTFT', value: 1200 });
    expect(r.decodeCaption).toMatch(/^Total tok\/s · /);
  });

  it('draws TTFT in ms, the lowest darkest', () => {
    const r = buildReportModel(ref, { metric: 'ttft' });
    const c = at(r.decode, 8192, 16);
    expect(c).toMatchObject({ text: '450 ms', detail: '1,200.0 tok/s total' });
    expect(r.decodeCaption).toMatch(/^TTFT \(median\) · /);
    const heat = decodeHeatmap(r.decode);
    const row = r.decode.contexts.indexOf(8192);
    const col = r.decode.concurrency.indexOf(16);
    expect(heat.cells[row][col].fill).toBe(metricColor(c.value as number, r.decode.maxValue, 'lower'));
    expect(heat.key).toMatch(/darker is lower \(better\)$/);
    // The key's steps run dark to light: 0 ms (left) is the best end.
    const swatches = [
      ...renderHtmlReport(ref, { metric: 'ttft' }).matchAll(/width="10" height="10" fill="(#[0-9a-f]{6})"/g),
    ].map((m) => m[1]);
    expect(swatches[0]).toBe(sequentialColor(1));
    expect(swatches[swatches.length - 1]).toBe(sequentialColor(0));
  });

  it('prices a million tokens from the GPU price, and says why when there is no price or telemetry', () => {
    const cost = buildReportModel(ref, { metric: 'cost-per-million', gpuPricePerHour: 3.6 });
    // 3.6 per hour = 0.001 per second; a million tokens at 1,200 tok/s take 833.3 s.
    expect(at(cost.decode, 8192, 16).text).toBe('0.83');
    expect(cost.decodeUnavailable).toBeNull();
    expect(buildReportModel(ref, { metric: 'cost-per-million' }).decodeUnavailable).toBe(
      'Give a GPU price per hour to see cost.',
    );
    expect(buildReportModel(ref, { metric: 'joules-per-token' }).decodeUnavailable).toMatch(/no GPU power telemetry/);
  });

  it('greys the cells that miss the targets', () => {
    // 8K × 4 (120 ms, 95.2 tok/s per request) meets both; 8K × 16 (450 ms) misses the TTFT target.
    const r = buildReportModel(ref, { targets: parseTargets('ttft-p90<=200ms,per-request>=60') });
    const heat = decodeHeatmap(r.decode);
    const row = r.decode.contexts.indexOf(8192);
    expect(heat.cells[row][r.decode.concurrency.indexOf(16)].fill).toBe(MISSED_TARGET_FILL);
    expect(heat.cells[row][r.decode.concurrency.indexOf(4)].fill).not.toBe(MISSED_TARGET_FILL);
    expect(at(r.decode, 8192, 16).title).toMatch(/misses the targets$/);
  });

  it('writes the unavailable sentence in the HTML instead of an empty map', () => {
    const html = renderHtmlReport(ref, { metric: 'tokens-per-watt' });
    expect(html).toContain('no GPU power telemetry');
    expect(html).not.toContain('class="chart heatmap"');
    expect(renderHtmlReport(ref)).toContain('class="chart heatmap"');
  });
});

describe('speedmatrix report --metric', () => {
  it('checks the metric and the price', () => {
    expect(metricOptions('ttft', undefined)).toEqual({ ok: true, data: { metric: 'ttft', gpuPricePerHour: null } });
    expect(metricOptions('latency', undefined)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/"latency" is not a metric; use one of total, per-request, ttft/),
    });
    expect(metricOptions('cost-per-million', undefined)).toMatchObject({
      ok: false,
      error: expect.stringMatching(/needs --gpu-price/),
    });
    expect(metricOptions('cost-per-million', '-1')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/--gpu-price: "-1" is not a price/),
    });
    expect(metricOptions('cost-per-million', '2.1 EUR')).toEqual({
      ok: true,
      data: { metric: 'cost-per-million', gpuPricePerHour: 2.1, gpuPriceCurrency: 'EUR' },
    });
    expect(metricOptions('cost-per-million', '2.1 EUR $')).toMatchObject({
      ok: false,
      error: expect.stringMatching(/in US dollars unless you name the currency: 2\.5, 2\.1 EUR or €2\.10/),
    });
  });

  it('draws the HTML heatmap in the metric through the real CLI', async () => {
    const out = join(dir, 'cost.html');
    const r = await cli([
      'report',
      file,
      '--format',
      'html',
      '--metric',
      'cost-per-million',
      '--gpu-price',
      '3.6',
      '--out',
      out,
    ]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const html = readFileSync(out, 'utf8');
    expect(html).toContain('Cost per million output tokens (USD) · rows are context length');
    expect(html).toContain('>0.83<');
    const eur = join(dir, 'cost-eur.md');
    const named = await cli(['report', file, '--metric', 'cost-per-million', '--gpu-price', '€3.60', '--out', eur]);
    expect(named.code).toBe(0);
    expect(readFileSync(eur, 'utf8')).toContain('Cost per million output tokens (EUR)');
  });

  it('refuses an unknown metric, and cost without a price, with exit code 2, writing nothing', async () => {
    const out = join(dir, 'bad.md');
    const unknown = await cli(['report', file, '--metric', 'latency', '--out', out]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('--metric: "latency" is not a metric');
    const noPrice = await cli(['report', file, '--metric', 'cost-per-million', '--out', out]);
    expect(noPrice.code).toBe(2);
    expect(noPrice.stderr).toContain('--metric cost-per-million needs --gpu-price');
    expect(() => readFileSync(out)).toThrow();
  });
});
