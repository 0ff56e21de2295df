/** A small SVG line for live telemetry: cheap enough to redraw every second. */
export function Sparkline(props: { values: (number | null)[]; max?: number; label: string; current: string }) {
  const w = 160;
  const h = 36;
  const vals = props.values.map((v) => (v == null ? null : v));
  const finite = vals.filter((v): v is number => v != null);
  const max = props.max ?? Math.max(1, ...finite);
  const pts = vals
    .map((v, i) =>
      v == null ? null : `${(i / Math.max(1, vals.length - 1)) * w},${h - (Math.min(v, max) / max) * (h - 2) - 1}`,
    )
    .filter(Boolean)
    .join(' ');
  return (
    <figure className="spark">
      <figcaption>
        {props.label} <strong>{props.current}</strong>
      </figcaption>
      <svg width={w} height={h} viewBox={`0 0 ${w} ${h}`} role="img" aria-label={`${props.label}: ${props.current}`}>
        <polyline points={pts} fill="none" stroke="currentColor" strokeWidth="2" />
      </svg>
    </figure>
  );
}
