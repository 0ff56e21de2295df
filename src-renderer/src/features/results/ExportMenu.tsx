/**
 * The Results toolbar's exports in one menu, so the toolbar keeps to one row at 1024 px: a
 * disclosure (details/summary, keyboard-operable as it is) whose items close it when chosen.
 */
import type { MouseEvent } from 'react';
import { exportReport } from '../../store/actions';

export function ExportMenu({ canExport, isLoad }: { canExport: boolean; isLoad: boolean }) {
  // A chosen item closes the menu: the export then runs with the toolbar back as it was.
  const close = (e: MouseEvent<HTMLElement>) => {
    const menu = e.currentTarget.closest('details');
    if (menu) menu.open = false;
  };
  return (
    <details className="menu" data-testid="export-menu">
      <summary aria-disabled={!canExport}>Export</summary>
      <div className="menu-items" role="group" aria-label="Export the open session" onClick={close}>
        <button
          type="button"
          onClick={() => void exportReport('markdown')}
          disabled={!canExport}
          data-testid="export-markdown"
        >
          Markdown report
        </button>
        <button type="button" onClick={() => void exportReport('html')} disabled={!canExport} data-testid="export-html">
          HTML report
        </button>
        <button type="button" onClick={() => void exportReport('pdf')} disabled={!canExport} data-testid="export-pdf">
          PDF report
        </button>
        <button
          type="button"
          onClick={() => void exportReport('csv')}
          disabled={!canExport}
          data-testid="export-csv"
          title={
            isLoad
              ? "Every load pass's figures, one row each, in base units"
              : "Every decode cell's figures, one row each, in base units"
          }
        >
          {isLoad ? 'Passes (CSV)' : 'Cells (CSV)'}
        </button>
        <button
          type="button"
          onClick={() => void exportReport('jsonl')}
          disabled={!canExport || isLoad}
          data-testid="export-jsonl"
          title="Every request of every decode cell, one JSON record per line"
        >
          Requests (JSON Lines)
        </button>
      </div>
    </details>
  );
}
