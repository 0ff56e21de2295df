/** The All measurements table: the report model's rows, sortable by any column. */
import { useMemo } from 'react';
import { useApp } from '../../store';
import { COLUMNS, type MeasurementRow, sortRows } from './measurements';

export function MeasurementsTable(props: { rows: MeasurementRow[]; caption: string; onSelect: (k: string) => void }) {
  const { onSelect } = props;
  const sort = useApp((s) => s.sort);
  const toggle = useApp((s) => s.toggleSort);
  const rows = useMemo(() => sortRows(props.rows, sort), [props.rows, sort]);
  return (
    <section>
      <h3>All measurements</h3>
      <p className="muted" data-testid="measurements-caption">
        {props.caption}
      </p>
      <div className="table-wrap">
        <table className="measurements" data-testid="measurements">
          <thead>
            <tr>
              {COLUMNS.map((c) => (
                <th
                  key={c.id}
                  scope="col"
                  aria-sort={sort && sort.column === c.id ? (sort.descending ? 'descending' : 'ascending') : undefined}
                >
                  {c.id === 'phase' ? (
                    c.label
                  ) : (
                    <button
                      type="button"
                      className="sort"
                      onClick={() => toggle(c.id as Exclude<typeof c.id, 'phase'>)}
                    >
                      {c.label}
                      {sort?.column === c.id ? (sort.descending ? ' ▼' : ' ▲') : ''}
                    </button>
                  )}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr
                key={r.key}
                className={r.cellKey ? 'clickable' : undefined}
                onClick={r.cellKey ? () => onSelect(r.cellKey as string) : undefined}
              >
                {r.text.map((t, i) => (
                  <td key={i} className={i >= 4 ? 'num' : undefined}>
                    {t}
                  </td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
