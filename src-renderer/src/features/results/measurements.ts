/**
 * The All measurements table: the report model's rows (the same text as the Markdown, HTML and
 * PDF reports), sortable here by any column but Phase.
 */
import {
  MEASUREMENT_COLUMNS,
  MEASUREMENT_SORT_KEYS,
  type MeasurementRow,
  type MeasurementSortKey,
} from '#shared/report/report-model';

export { measurementRows, type MeasurementRow } from '#shared/report/report-model';

export const COLUMNS: { id: MeasurementSortKey | 'phase'; label: string }[] = MEASUREMENT_COLUMNS.map((label, i) => ({
  id: i === 0 ? 'phase' : MEASUREMENT_SORT_KEYS[i - 1],
  label,
}));

/** Sorted copy; missing values always go last, whatever the direction. */
export function sortRows(
  rows: MeasurementRow[],
  sort: { column: MeasurementSortKey; descending: boolean } | null,
): MeasurementRow[] {
  if (!sort) return rows;
  const dir = sort.descending ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = a.sort[sort.column];
    const y = b.sort[sort.column];
    if (x === y) return 0;
    if (x === null) return 1;
    if (y === null) return -1;
    return (x < y ? -1 : 1) * dir;
  });
}
