/** "At a glance": the report model's headline figures, as the Markdown and HTML reports open with them. */
import { GLANCE_TITLE, type GlanceItem } from '#shared/report/at-a-glance';

export function Glance({ items }: { items: readonly GlanceItem[] }) {
  if (items.length === 0) return null;
  return (
    <section className="glance" aria-labelledby="glance-title" data-testid="glance">
      <h3 id="glance-title">{GLANCE_TITLE}</h3>
      <dl>
        {items.map((g) => (
          <div key={g.label} className="glance-item" data-testid="glance-item">
            <dt>{g.label}</dt>
            <dd className="glance-value">{g.value}</dd>
            {g.detail && <dd className="glance-detail">{g.detail}</dd>}
          </div>
        ))}
      </dl>
    </section>
  );
}
