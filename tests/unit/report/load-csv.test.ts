/**
 * A load session's data export: one CSV row per pass in base units (the app's "Export passes"
 * and `report -o passes.csv`), and JSON Lines refused with the CSV named, since a load session
 * keeps no per-request timings.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importText } from '../../../src-main/workflows/importers';
import { LOAD_CSV_COLUMNS, dataExportRefusal, renderDataExport } from '../../../src-main/workflows/report/data-export';
import { ROOT } from '../../helpers/paths';

function peer(name: string) {
  const r = importText(readFileSync(join(ROOT, 'tests/fixtures/peers', name), 'utf8'), name);
  if (!r.ok) throw new Error(r.error);
  return r.data;
}

describe('a load session’s data export', () => {
  it('writes one CSV row per pass, in base units, under the load columns', () => {
    const session = peer('vllm-bench-serve-rate4.json');
    const r = session.load!.results[0];
    expect(dataExportRefusal(session, 'csv', 'Export passes (CSV)')).toBeNull();
    const lines = renderDataExport(session, 'csv').trim().split('\r\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe(LOAD_CSV_COLUMNS.join(','));
    const row = Object.fromEntries(lines[0].split(',').map((k, i) => [k, lines[1].split(',')[i]]));
    expect(row.pass).toBe(r.pass);
    expect(Number(row.achieved_rate_per_s)).toBe(r.achievedRate);
    expect(Number(row.output_tokens_per_s)).toBe(r.outputTokensPerSecond);
    expect(Number(row.ttft_p50_s)).toBe(r.ttft!.p50);
    expect(Number(row.ttft_count)).toBe(r.ttft!.count);
    expect(row.kept_up).toBe(r.keptUp ? 'yes' : 'no');
  });

  it('refuses JSON Lines with the CSV as the way out', () => {
    const session = peer('vllm-bench-serve-rate4.json');
    expect(dataExportRefusal(session, 'jsonl', '-o passes.csv')).toBe(
      'a load session keeps no per-request timings. Its passes can be exported as CSV: -o passes.csv.',
    );
  });
});
