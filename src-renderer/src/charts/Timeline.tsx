/** A cell's requests over time, drawn from the shared timeline model and layout (the HTML report draws the same). */
import { type TimelineModel, timelineLayout, timelineLegend } from '#shared/report/timeline';

const OUTCOME_CLASS = { done: 'tl-done', cancelled: 'tl-cancelled', error: 'tl-error' } as const;

export function Timeline({ model, label }: { model: TimelineModel; label: string }) {
  const L = timelineLayout(model.bars.length);
  const wide = (from: number, to: number, min: number) => Math.max(min, (to - from) * L.plotWidth);
  return (
    <figure className="timeline" data-testid="cell-timeline">
      <svg viewBox={`0 0 ${L.width} ${L.height}`} width="100%" role="img" aria-label={label} fontSize={11}>
        {model.window && (
          <rect
            x={L.x(model.window.start)}
            y={L.top}
            width={wide(model.window.start, model.window.end, 0)}
            height={L.plotHeight}
            className="tl-window"
          />
        )}
        {model.ticks.map((t) => (
          <g key={t.text}>
            <line x1={L.x(t.at)} x2={L.x(t.at)} y1={L.top} y2={L.top + L.plotHeight + 4} className="tl-tick" />
            <text x={L.x(t.at)} y={L.tickTextY} textAnchor="middle" fill="currentColor">
              {t.text}
            </text>
          </g>
        ))}
        {model.bars.map((b, i) => {
          const { y, h } = L.bar(i);
          return (
            <g key={i} className={OUTCOME_CLASS[b.outcome]} data-gap={b.gap ? 'large' : undefined}>
              <title>{b.title}</title>
              <rect x={L.x(b.sent)} y={y} width={wide(b.sent, b.first ?? b.end, 0.5)} height={h} className="tl-ttft" />
              {b.first !== null && <rect x={L.x(b.first)} y={y} width={wide(b.first, b.end, 0.5)} height={h} />}
              {b.gap && (
                <rect
                  x={L.x(b.gap.start)}
                  y={y}
                  width={wide(b.gap.start, b.gap.end, 1.5)}
                  height={h}
                  className="tl-gap"
                />
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">{timelineLegend(model)}</figcaption>
    </figure>
  );
}
