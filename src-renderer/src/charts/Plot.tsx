/** A Plotly chart in a div: Plotly.react on every change, purge on unmount. */
import Plotly, { type Config, type Layout, type Trace } from 'plotly.js-cartesian-dist-min';
import { useEffect, useRef } from 'react';

const CONFIG: Config = { displaylogo: false, responsive: true, modeBarButtonsToRemove: ['lasso2d', 'select2d'] };

export function Plot(props: { data: Trace[]; layout: Layout; height: number; label: string; testId?: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    void Plotly.react(el, props.data, { ...props.layout, height: props.height, autosize: true }, CONFIG);
  }, [props.data, props.layout, props.height]);
  useEffect(() => {
    const el = ref.current;
    return () => {
      if (el) Plotly.purge(el);
    };
  }, []);
  return <div ref={ref} className="plot" role="img" aria-label={props.label} data-testid={props.testId} style={{ minHeight: props.height }} />;
}
