/**
 * The sustained-decode heatmap: an HTML table, so cell text is real text, every cell is a
 * keyboard-reachable button, and it prints as it looks.
 */
import { cellKey } from '#shared/cell-key';
import { type FocusEvent, type KeyboardEvent, type ReactNode, memo, useState } from 'react';
import { CELL_METRIC_DEFS } from '#shared/report/cell-metrics';
import { metricGradientCss, metricKeyText } from '#shared/report/matrix-model';
import type { HeatCell, HeatmapModel } from './heatmap-model';
import { LIVE_STAGE_WORDS, fmtCell, fmtContext, legendText, statusWord, toneClass, tokPerSec } from '../format';
import type { LiveCell } from '#shared/ipc/contract';
import type { StatusSource } from '#shared/session/status-words';

export function Heatmap(props: {
  model: HeatmapModel;
  live?: LiveCell | null;
  selected?: string | null;
  onSelect?: (key: string) => void;
  /** Replaces the metric's caption and colour key (a comparison's ratio map has its own). */
  caption?: string;
  scaleKey?: ReactNode;
  /** Who decided the statuses (an imported session keeps its source's definitions); ours when absent. */
  statusSource?: StatusSource;
}) {
  const { model, live } = props;
  const liveKey = live ? cellKey(live) : null;
  // One Tab stop for the whole grid (the cell last focused, else the selected one, else the first),
  // and the arrow keys move between cells, as in a grid.
  const [focused, setFocused] = useState<string | null>(null);
  const selectable = props.onSelect ? model.rows.flat().filter((c) => c.cell) : [];
  const has = (key: string | null | undefined) => !!key && selectable.some((c) => c.key === key);
  const tabStop = has(focused) ? focused : has(props.selected) ? props.selected : (selectable[0]?.key ?? null);
  return (
    <div className="heatmap-wrap">
      <table
        className="heatmap"
        data-testid="heatmap"
        onKeyDown={moveInGrid}
        onFocus={(e: FocusEvent<HTMLTableElement>) => {
          const key = (e.target as HTMLElement).closest('td')?.dataset.cell;
          if (key) setFocused(key);
        }}
      >
        <caption>
          {props.caption ?? (model.metric === 'total' ? 'total tok/s' : CELL_METRIC_DEFS[model.metric].label)} · rows
          are context length, columns are simultaneous requests
        </caption>
        <thead>
          <tr>
            <th scope="col">Context</th>
            {model.concurrency.map((c) => (
              <th scope="col" key={c}>
                {c}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {model.rows.map((row, i) => (
            <tr key={model.contexts[i]}>
              <th scope="row">{fmtContext(model.contexts[i], model.contexts)}</th>
              {row.map((cell, j) => (
                <HeatmapCell
                  key={cell.key}
                  cell={cell}
                  tabStop={cell.key === tabStop}
                  row={i}
                  col={j}
                  live={cell.key === liveKey ? (live ?? null) : null}
                  selected={props.selected === cell.key}
                  onSelect={props.onSelect}
                />
              ))}
            </tr>
          ))}
        </tbody>
      </table>
      <div className="hm-scale" aria-hidden={model.max === null} data-testid="heatmap-key">
        {props.scaleKey ??
          (model.max !== null && (
            <>
              <span className="ramp" style={{ background: metricGradientCss(CELL_METRIC_DEFS[model.metric].better) }} />
              <span>{metricKeyText(model.metric, model.max)}</span>
            </>
          ))}
      </div>
      {model.statusesShown.length > 0 && (
        <p className="legend" data-testid="heatmap-legend">
          {model.statusesShown.map((s) => (
            <span key={s}>
              <strong className={`legend-word ${toneClass(s)}`}>{statusWord(s)}</strong>:{' '}
              {legendText(s, props.statusSource ?? null)}{' '}
            </span>
          ))}
        </p>
      )}
    </div>
  );
}

const MOVES: Record<string, [number, number]> = {
  ArrowUp: [-1, 0],
  ArrowDown: [1, 0],
  ArrowLeft: [0, -1],
  ArrowRight: [0, 1],
};

/** Arrow keys: focus the next cell that can be selected in that direction (cells without a figure are skipped). */
function moveInGrid(e: KeyboardEvent<HTMLTableElement>): void {
  const step = MOVES[e.key];
  const from = (e.target as HTMLElement).closest<HTMLElement>('td[data-cell]');
  if (!step || !from) return;
  const cells = [...e.currentTarget.querySelectorAll<HTMLElement>('td[data-cell]')];
  const at = (row: number, col: number) =>
    cells.find((c) => c.dataset.row === String(row) && c.dataset.col === String(col));
  let [row, col] = [Number(from.dataset.row), Number(from.dataset.col)];
  for (;;) {
    row += step[0];
    col += step[1];
    const cell = at(row, col);
    if (!cell) return;
    const button = cell.querySelector<HTMLButtonElement>('button.hm-btn');
    if (button) {
      e.preventDefault();
      button.focus();
      return;
    }
  }
}

/**
 * One cell, memoized: a live update changes one cell's props (the live one), so React leaves
 * the others, and the browser's style and layout work stays with that cell.
 */
const HeatmapCell = memo(function HeatmapCell(props: {
  cell: HeatCell;
  live: LiveCell | null;
  selected: boolean;
  onSelect?: (key: string) => void;
  /** The grid's one Tab stop. */
  tabStop: boolean;
  row: number;
  col: number;
}) {
  const { cell, live } = props;
  const isLive = live !== null && cell.kind !== 'value';
  const cls = [
    'hm-cell',
    `hm-${cell.kind}`,
    cell.status ? toneClass(cell.status) : '',
    isLive ? 'hm-live' : '',
    props.selected ? 'hm-selected' : '',
    cell.missesTargets ? 'hm-miss' : '',
  ]
    .filter(Boolean)
    .join(' ');
  const content =
    isLive && live ? (
      <>
        <span className="l1">{tokPerSec(live.tokensPerSecond)}</span>
        <span className="l2">
          {live.activeRequests != null
            ? `${live.activeRequests} active · ${LIVE_STAGE_WORDS[live.stage]}`
            : LIVE_STAGE_WORDS[live.stage]}
        </span>
      </>
    ) : (
      <>
        <span className="l1">{cell.line1}</span>
        {cell.line2 && <span className="l2">{cell.line2}</span>}
        {cell.flag && <span className="l3">{cell.flag}</span>}
      </>
    );
  const title = cell.reason ?? (cell.status ? statusWord(cell.status) : undefined);
  return (
    <td
      className={cls}
      style={cell.background ? { background: cell.background, color: cell.foreground ?? undefined } : undefined}
      data-cell={cell.key}
      data-row={props.row}
      data-col={props.col}
      data-status={isLive ? 'running' : (cell.status ?? cell.kind)}
      data-kind={cell.kind}
      data-targets={cell.missesTargets ? 'missed' : undefined}
    >
      {props.onSelect && cell.cell ? (
        <button
          type="button"
          className="hm-btn"
          title={title}
          tabIndex={props.tabStop ? 0 : -1}
          aria-pressed={props.selected}
          onClick={() => props.onSelect?.(cell.key)}
          aria-label={`${fmtCell(cell.context, cell.concurrency)}: ${[cell.line1, cell.line2, cell.flag].filter(Boolean).join(', ')}`}
        >
          {content}
        </button>
      ) : (
        <div className="hm-btn" title={title}>
          {content}
        </div>
      )}
    </td>
  );
});
