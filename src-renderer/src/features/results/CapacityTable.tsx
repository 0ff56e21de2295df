/** "Capacity within targets": the report model's section, as the Markdown and HTML reports show it. */
import type { CapacitySection } from '@shared/report/capacity-section';

export function CapacityTable({ section }: { section: CapacitySection }) {
  return (
    <section data-testid="capacity">
      <h3>{section.title}</h3>
      <ul className="targets">
        {section.targets.map((t) => (
          <li key={t}>{t}</li>
        ))}
      </ul>
      <div className="table-wrap">
        <table className="measurements" data-testid="capacity-table">
          <thead>
            <tr>
              {section.header.map((h) => (
                <th key={h} scope="col">
                  {h}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {section.rows.map((r) => (
              <tr key={r[0]}>
                {r.map((v, i) =>
                  i === 0 ? (
                    <th key={i} scope="row">
                      {v}
                    </th>
                  ) : (
                    <td key={i}>{v}</td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {section.notes.map((n) => (
        <p key={n} className="muted">
          {n}
        </p>
      ))}
    </section>
  );
}
