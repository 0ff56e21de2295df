/**
 * A load session's results: the report model's load section, as the Markdown and HTML reports show it (docs/load.md),
 * with the same throughput and latency charts the Run view draws as the passes end.
 */
import type { LoadSection } from '#shared/report/load-model';
import type { LoadRateResult } from '#shared/session/schema-load';
import { LoadLatencyChart, LoadThroughputChart } from '../../charts/LoadCharts';
import { ModelTable } from '../../components/ModelTable';

export function LoadResults({ section, results }: { section: LoadSection; results: LoadRateResult[] }) {
  return (
    <section data-testid="load">
      <h3>Load</h3>
      <p className="muted">{section.workload}</p>
      <p className="load-answer" data-testid="load-answer">
        <strong>{section.answer}</strong>
      </p>
      <div className="run-charts" data-testid="load-charts">
        <section className="chart-pane">
          <h4>Throughput</h4>
          <LoadThroughputChart results={results} />
        </section>
        <section className="chart-pane">
          <h4>Latency</h4>
          <LoadLatencyChart results={results} />
        </section>
      </div>
      <div className="load-passes">
        <ModelTable table={section.table} testId="load-table" />
      </div>
      {section.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </section>
  );
}
