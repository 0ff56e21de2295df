/** "Capacity within targets": the report model's section, as the Markdown and HTML reports show it. */
import type { CapacitySection } from '#shared/report/capacity-section';
import { ModelTable } from '../../components/ModelTable';

export function CapacityTable({ section }: { section: CapacitySection }) {
  return (
    <section data-testid="capacity">
      <h3>{section.title}</h3>
      <ul className="targets">
        {section.targets.map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      <ModelTable table={section} testId="capacity-table" />
      {section.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </section>
  );
}
