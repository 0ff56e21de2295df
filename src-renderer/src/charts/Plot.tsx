/**
 * A Plotly chart in a div. Plotly.react calls are chained so one finishes before the next
 * starts, and purge on unmount waits for the last one: purging while Plotly is still drawing
 * (its auto-margin redraw) throws "reading '_redrawFromAutoMarginCount'" from a timer.
 */
import Plotly, { type Config, type Layout, type Trace } from 'plotly.js-cartesian-dist-min';
import { useEffect, useRef } from 'react';

const CONFIG: Config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['lasso2d', 'select2d'] };

export function Plot(props: { data: Trace[]; layout: Layout; height: number; label: string; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  const drawing = useRef<Promise<unknown>>(Promise.resolve());
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const layout = { ...props.layout, height: props.height, autosize: true };
    drawing.current = drawing.current.then(() => Plotly.react(el, props.data, layout, CONFIG)).catch(() => undefined);
  }, [props.data, props.layout, props.height]);
  useEffect(() => {
    const el = ref.current;
    return () => {
      if (el) void drawing.current.then(() => setTimeout(() => Plotly.purge(el), 0));
    };
  }, []);
  return (
    <div
      ref={ref}
      className="plot"
      role="img"
      aria-label={props.label}
      data-testid={props.testId}
      style={{ minHeight: props.height }}
    />
  );
}
