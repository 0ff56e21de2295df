/**
 * The one key of a decode cell (context × concurrency) wherever cells are looked up: maps and
 * sets in the core and the worker, the IPC payloads, the store and React keys. "8192x32".
 */
export interface CellCoords {
  readonly context: number;
  readonly concurrency: number;
}

export const cellKey = (c: CellCoords): string => `${c.context}x${c.concurrency}`;

/** Cells by (context, concurrency); a later cell for the same pair (a rerun) wins. */
export function cellIndex<T extends CellCoords>(cells: readonly T[]): Map<string, T> {
  const map = new Map<string, T>();
  for (const c of cells) map.set(cellKey(c), c);
  return map;
}
