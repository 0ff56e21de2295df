/** A load session's results: the report model's load section, as the Markdown and HTML reports show it (docs/load.md). */
import type { LoadSection } from '#shared/report/load-model';
import { ModelTable } from '../../components/ModelTable';

export function LoadResults({ section }: { section: LoadSection }) {
  return (
    <section data-testid="load">
      <h3>Load</h3>
      <p className="muted">{section.workload}</p>
      <p className="load-answer" data-testid="load-answer">
        <strong>{section.answer}</strong>
      </p>
      <ModelTable table={section.table} testId="load-table" />
      {section.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </section>
  );
}
