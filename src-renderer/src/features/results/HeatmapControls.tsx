/**
 * What the Results heatmap shows: the metric switch, the GPU price that cost needs
 * (remembered in localStorage), and the service-level targets whose misses are greyed.
 */
import { useMemo } from 'react';
import { CELL_METRICS, CELL_METRIC_DEFS, type CellMetric } from '#shared/report/cell-metrics';
import type { TargetSet } from '#shared/report/slo';
import { DEFAULT_CURRENCY, GPU_PRICE_HINT } from '#shared/report/price';
import { useApp } from '../../store';
import { parsePrice, parseTargetText } from '../../store/report-view-slice';
import { Field, invalidProps } from '../../components/ui';

const TARGETS_PLACEHOLDER = 'ttft-p90<=2s,tbt-p90<=50ms,per-request>=20';

/** The price field's text, its number and currency; a valid price is remembered for the next start. */
export function useGpuPrice(): {
  text: string;
  price: number | null;
  /** ISO 4217 code: the one named, else US dollars. */
  currency: string;
  error: string | null;
  setText: (t: string) => void;
} {
  const text = useApp((s) => s.gpuPriceText);
  const setText = useApp((s) => s.setGpuPriceText);
  const parsed = parsePrice(text);
  const error = text.trim() !== '' && parsed === null ? `Give ${GPU_PRICE_HINT}.` : null;
  return { text, price: parsed?.perHour ?? null, currency: parsed?.currency ?? DEFAULT_CURRENCY, error, setText };
}

/** The targets field's text and what it parses to: a set, an error, or nothing when empty. */
export function useTargets(): {
  text: string;
  set: TargetSet | null;
  error: string | null;
  setText: (t: string) => void;
} {
  const text = useApp((s) => s.targetsText);
  const setText = useApp((s) => s.setTargetsText);
  // Parsed once per text, so the report and heatmap built from the set are not rebuilt on every render.
  const parsed = useMemo(() => parseTargetText(text), [text]);
  return { text, ...parsed, setText };
}

export function HeatmapControls(props: {
  metric: CellMetric;
  onMetric: (m: CellMetric) => void;
  price: ReturnType<typeof useGpuPrice>;
  targets: ReturnType<typeof useTargets>;
  /** Why a metric cannot be shown for this session (no power telemetry), or null; such options are disabled. */
  unavailable?: (m: CellMetric) => string | null;
}) {
  const { metric, price, targets } = props;
  return (
    <div className="heatmap-controls" data-testid="heatmap-controls">
      <Field id="heatmap-metric" label="Show" help="The figure each cell shows and is coloured by; darker is better.">
        <select
          id="heatmap-metric"
          value={metric}
          onChange={(e) => props.onMetric(e.target.value as CellMetric)}
          aria-describedby="heatmap-metric-help"
        >
          {CELL_METRICS.map((m) => {
            // Cost is not disabled: its price is given right here.
            const why = m === 'cost-per-million' ? null : (props.unavailable?.(m) ?? null);
            return (
              <option key={m} value={m} disabled={why !== null && m !== metric} title={why ?? undefined}>
                {why ? `${CELL_METRIC_DEFS[m].label} (not in this session)` : CELL_METRIC_DEFS[m].label}
              </option>
            );
          })}
        </select>
      </Field>
      {metric === 'cost-per-million' && (
        <Field
          id="gpu-price"
          label="GPU price per hour"
          help="For one GPU, in US dollars unless you name the currency (2.1 EUR, €2.10); the cost counts every GPU of the server."
          error={price.error}
        >
          <input
            id="gpu-price"
            placeholder="2.50"
            value={price.text}
            onChange={(e) => price.setText(e.target.value)}
            {...invalidProps('gpu-price', price.error)}
          />
        </Field>
      )}
      <Field
        id="slo-targets"
        label="Targets"
        help="Cells that miss any target are greyed; empty for none."
        error={targets.error}
      >
        <input
          id="slo-targets"
          className="targets-input"
          placeholder={TARGETS_PLACEHOLDER}
          value={targets.text}
          onChange={(e) => targets.setText(e.target.value)}
          spellCheck={false}
          {...invalidProps('slo-targets', targets.error)}
        />
      </Field>
    </div>
  );
}
