/**
 * The one table of status meanings (src-shared/session/status-words.ts), read back through the
 * parts that use it: the engine's resume, the app's count of cells left and its heatmap, the
 * report's legend, table colours and matrix, and the plan. Each status is one cell of a session.
 */
import { describe, expect, it } from 'vitest';
import { unmeasuredCell } from '../../../src-main/engine/bench/cells';
import { planRun } from '../../../src-main/engine/bench/plan';
import { doneMeasurements } from '../../../src-main/engine/bench/repetitions';
import { renderHtmlReport } from '../../../src-main/workflows/report/html';
import { buildHeatmap } from '../../../src-renderer/src/charts/heatmap-model';
import { cellsLeft } from '../../../src-renderer/src/store/run-slice';
import { cellKey } from '#shared/cell-key';
import { buildDecodeMatrix, statusColor } from '#shared/report/matrix-model';
import { buildReportModel } from '#shared/report/report-model';
import { type CellStatus, CellStatusSchema, type Session } from '#shared/session/schema';
import { STATUSES, STATUS_ORDER, legendLine, legendText, statusSourceOf } from '#shared/session/status-words';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

const K = 1024;
const WITH_FIGURES: CellStatus[] = ['valid', 'queued', 'stalled'];

/** One 8K cell per status, concurrency 1, 2, 3, … in the schema's order. */
function everyStatus(): Session {
  const s = sampleSession();
  const statuses = CellStatusSchema.options;
  s.cells = statuses.map((status, i) =>
    WITH_FIGURES.includes(status)
      ? sampleCell(8 * K, i + 1, { status, reason: status === 'valid' ? null : `why ${status}` })
      : unmeasuredCell(8 * K, i + 1, status, `why ${status}`),
  );
  s.runConfig.contexts = [8 * K];
  s.runConfig.concurrency = statuses.map((_, i) => i + 1);
  return s;
}
const statusAt = (s: Session, key: string) => s.cells.find((c) => cellKey(c) === key)!.status;

describe('one table of status meanings', () => {
  it('has a row for every status of the session schema, each in the legend order once', () => {
    expect([...STATUS_ORDER].sort()).toEqual([...CellStatusSchema.options].sort());
  });

  it('a resumed run measures again only what was cancelled, and the app counts the same cells as left', () => {
    const s = everyStatus();
    const done = doneMeasurements(s.cells);
    const notDone = s.cells.filter((c) => !done.includes(cellKey(c))).map((c) => c.status);
    expect(notDone).toEqual(['cancelled']);
    expect(done.map((k) => statusAt(s, k))).toContain('stalled');
    expect(cellsLeft(s)).toBe(notDone.length);
  });

  it('Stream stalled and Requests queued keep their figure with the word beside it, in the report and the app', () => {
    const s = everyStatus();
    const shown = buildDecodeMatrix(s).rows[0];
    const heat = buildHeatmap(s.runConfig.contexts, s.runConfig.concurrency, s.cells).rows[0];
    for (const [i, c] of shown.entries()) {
      const keeps = WITH_FIGURES.includes(c.status!);
      expect(c.kind, c.status!).toBe(keeps ? 'value' : 'status');
      expect(heat[i].kind, c.status!).toBe(keeps ? 'value' : 'status');
      if (keeps && c.status !== 'valid') expect([c.flag, heat[i].flag]).toEqual([STATUSES[c.status!].word, c.flag]);
      if (!keeps) expect(c.text).toBe(STATUSES[c.status!].word);
    }
  });

  it('the report and the app explain the statuses in one order, Valid in neither', () => {
    const s = everyStatus();
    const report = buildReportModel(s).legend;
    const app = buildHeatmap(s.runConfig.contexts, s.runConfig.concurrency, s.cells).statusesShown;
    expect(report).toEqual(app.map((status) => legendLine(status)));
    expect(app).toEqual(['looped', 'over-capacity', 'queued', 'stalled', 'too-long', 'error', 'cancelled', 'skipped']);
  });

  it('a report explains only the statuses that occur: none when every cell is Valid', () => {
    const s = sampleSession();
    s.cells = [sampleCell(8 * K, 1), sampleCell(8 * K, 2)];
    expect(buildReportModel(s).legend).toEqual([]);
    s.cells.push(unmeasuredCell(8 * K, 4, 'error', 'the server went down'));
    expect(buildReportModel(s).legend.map((l) => l.split(':')[0])).toEqual(['Error']);
  });

  it('paints statuses by family: stalled as queued, looped and error warm, planned-out cells alike', () => {
    const html = renderHtmlReport(everyStatus());
    const classOf = (word: string) => new RegExp(`<td class="text ([^"]+)">${word}</td>`).exec(html)?.[1];
    expect(classOf('Stream stalled')).toBe(classOf('Requests queued'));
    expect(classOf('Looped')).not.toBe(classOf('Requests queued'));
    expect(classOf('Skipped')).toBe(classOf('Over capacity'));
    expect(statusColor('looped')).toBe(statusColor('error'));
    expect(statusColor('skipped')).toBe(statusColor('too-long'));
    expect(statusColor('looped')).not.toBe(statusColor('over-capacity'));
  });

  it('the plan leaves cells out only with statuses that send no request, and those carry no counts', () => {
    const plan = planRun(
      {
        contexts: [8 * K, 64 * K],
        concurrency: [1, 64],
        skip: [{ context: 8 * K, concurrency: 1 }],
      },
      {
        maxModelLen: 32 * K,
        kvBudget: { tokens: 100_000, source: 'user', detail: null, maxConcurrency: null, tokensPerRequest: null },
      },
    );
    const leftOut = plan.cells.filter((c) => c.action !== 'run').map((c) => c.action);
    expect(new Set(leftOut)).toEqual(new Set(['skipped', 'too-long', 'over-capacity']));
    for (const a of leftOut) {
      if (a === 'run') continue;
      expect(STATUSES[a].ran, a).toBe(false);
      expect(unmeasuredCell(8 * K, 1, a, null).completedRequests, a).toBeNull();
    }
    expect(unmeasuredCell(8 * K, 1, 'looped', null).completedRequests).toBe(0);
  });

  it('says where an imported session’s statuses were decided: the tool it names, none for an unnamed or unknown one', () => {
    const imported = (benchmarkTool: string): Session => {
      const s = sampleSession();
      return {
        ...s,
        origin: { kind: 'imported-vllm-bench', file: null },
        runConfig: { ...s.runConfig, benchmarkTool },
      };
    };
    expect(statusSourceOf(sampleSession())).toBeNull();
    expect(statusSourceOf(imported('vllm bench serve'))).toEqual({ importedFrom: 'vllm bench serve' });
    expect(statusSourceOf(imported('unknown'))).toEqual({ importedFrom: null });
    expect(statusSourceOf(imported(''))).toEqual({ importedFrom: null });
    expect(legendText('queued', { importedFrom: 'guidellm' })).toBe(
      "as defined by the source tool (guidellm); SpeedMatrix's own rule for this status was not applied.",
    );
    expect(legendText('queued', { importedFrom: null })).toBe(
      "as defined by the source tool; SpeedMatrix's own rule for this status was not applied.",
    );
  });
});
