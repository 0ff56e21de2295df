/**
 * What the Results heatmap shows: the metric switch, the GPU price that cost needs
 * (remembered in localStorage), and the service-level targets whose misses are greyed.
 */
import { useMemo, useState } from 'react';
import { CELL_METRICS, CELL_METRIC_DEFS, type CellMetric } from '@shared/report/cell-metrics';
import { type TargetSet, TargetSpecError, parseTargets } from '@shared/report/slo';
import { Field, invalidProps } from '../../components/ui';

export const GPU_PRICE_KEY = 'speedmatrix.gpuPricePerHour';
export const TARGETS_PLACEHOLDER = 'ttft-p90<=2s,tbt-p90<=50ms,per-request>=20';

function storedPrice(): number | null {
  try {
    const v = Number(localStorage.getItem(GPU_PRICE_KEY));
    return v > 0 && Number.isFinite(v) ? v : null;
  } catch {
    return null;
  }
}

/** The price field's text and its number; a valid price is remembered for the next start. */
export function useGpuPrice(): {
  text: string;
  price: number | null;
  error: string | null;
  setText: (t: string) => void;
} {
  const [text, setTextState] = useState(() => String(storedPrice() ?? ''));
  const trimmed = text.trim();
  const n = Number(trimmed);
  const price = trimmed !== '' && Number.isFinite(n) && n > 0 ? n : null;
  const error =
    trimmed !== '' && price === null ? 'Give the price of one GPU for one hour as a number above 0, e.g. 2.5.' : null;
  const setText = (t: string) => {
    setTextState(t);
    const v = Number(t.trim());
    if (t.trim() !== '' && Number.isFinite(v) && v > 0) {
      try {
        localStorage.setItem(GPU_PRICE_KEY, String(v));
      } catch {
        // Storage can be unavailable (private mode); the price still works for this window.
      }
    }
  };
  return { text, price, error, setText };
}

/** The targets field's text and what it parses to: a set, an error, or nothing when empty. */
export function useTargets(): {
  text: string;
  set: TargetSet | null;
  error: string | null;
  setText: (t: string) => void;
} {
  const [text, setText] = useState('');
  // Parsed once per text, so the report and heatmap built from the set are not rebuilt on every render.
  const parsed = useMemo(() => parseSpec(text), [text]);
  return { text, ...parsed, setText };
}

function parseSpec(text: string): { set: TargetSet | null; error: string | null } {
  if (text.trim() === '') return { set: null, error: null };
  try {
    return { set: parseTargets(text), error: null };
  } catch (e) {
    if (!(e instanceof TargetSpecError)) throw e;
    return { set: null, error: e.message };
  }
}

export function HeatmapControls(props: {
  metric: CellMetric;
  onMetric: (m: CellMetric) => void;
  price: ReturnType<typeof useGpuPrice>;
  targets: ReturnType<typeof useTargets>;
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
          {CELL_METRICS.map((m) => (
            <option key={m} value={m}>
              {CELL_METRIC_DEFS[m].label}
            </option>
          ))}
        </select>
      </Field>
      {metric === 'cost-per-million' && (
        <Field
          id="gpu-price"
          label="GPU price per hour"
          help="For one GPU; the cost counts every GPU of the server."
          error={price.error}
        >
          <input
            id="gpu-price"
            inputMode="decimal"
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
