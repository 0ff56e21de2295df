/** A report table (TableModel: header and text rows) as a screen table, the first column as row headers. */
import type { ReactNode } from 'react';
import type { TableModel } from '#shared/report/report-model';

export function ModelTable(props: {
  table: TableModel;
  testId: string;
  /** Rows shown in bold, as the reports mark settings that differ. */
  marked?: ReadonlySet<number>;
  /** A last column of actions, one per row. */
  actions?: { header: string; cell: (row: number) => ReactNode };
  rowClass?: (row: number) => string | undefined;
}) {
  const { table, marked, actions } = props;
  return (
    <div className="table-wrap">
      <table className="measurements" data-testid={props.testId}>
        <thead>
          <tr>
            {table.header.map((h, i) => (
              <th key={i} scope="col">
                {h}
              </th>
            ))}
            {actions && <th scope="col">{actions.header}</th>}
          </tr>
        </thead>
        <tbody>
          {table.rows.map((r, i) => (
            <tr
              key={i}
              className={[marked?.has(i) ? 'marked' : '', props.rowClass?.(i) ?? ''].join(' ').trim() || undefined}
            >
              {r.map((v, j) =>
                j === 0 ? (
                  <th key={j} scope="row">
                    {v}
                  </th>
                ) : (
                  <td key={j}>{v}</td>
                ),
              )}
              {actions && <td>{actions.cell(i)}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
