/**
 * Launch variants: flags to vary and their values, next to the launch form. Main checks them
 * (the CLI's `--vary` rules) and lists every combination, labelled A, B, … with the command each
 * launches; the Run view runs them as a sweep.
 */
import type { AxisInput } from '#shared/sweep/variants';
import { useApp } from '../../store';
import { updateSweepAxes } from '../../store/actions';
import { sweepBusy } from '../../store/sweep-slice';
import { Field, invalidProps } from '../../components/ui';

const EMPTY: AxisInput = { flag: '', values: '' };

export function LaunchVariants() {
  const axes = useApp((s) => s.sweepAxes);
  const plan = useApp((s) => s.sweepPlan);
  const busy = useApp((s) => sweepBusy(s.sweep));
  const setView = useApp((s) => s.setView);
  // A row just added and not typed in yet is not wrong, only empty: it is marked once the user writes in it.
  const untouched = (i: number) => !axes[i]?.flag.trim() && !axes[i]?.values.trim();
  const problem = (i: number, field: 'flag' | 'values') =>
    untouched(i) ? null : (plan?.problems.find((p) => p.axis === i && p.field === field)?.message ?? null);
  const edit = (i: number, patch: Partial<AxisInput>) =>
    updateSweepAxes(axes.map((a, j) => (j === i ? { ...a, ...patch } : a)));

  return (
    <section className="variants" aria-labelledby="variants-title" data-testid="launch-variants">
      <h2 id="variants-title">Launch variants</h2>
      <p className="muted">
        Vary launch flags to see which settings are fastest: the Run view then measures the same matrix on every
        combination, one server at a time (a sweep).
      </p>
      {plan?.blocked && (
        <p className="hint" role="note" data-testid="variants-blocked">
          {plan.blocked}
        </p>
      )}
      <fieldset className="variant-axes" disabled={busy}>
        <legend className="sr-only">Varied settings</legend>
        {axes.map((a, i) => (
          <div className="variant-axis" key={i} data-testid="variant-axis">
            <AxisField
              id={`var-flag-${i}`}
              label="Flag"
              help="As the server spells it, e.g. --max-num-seqs."
              placeholder="--max-num-seqs"
              value={a.flag}
              error={problem(i, 'flag')}
              onChange={(flag) => edit(i, { flag })}
            />
            <AxisField
              id={`var-values-${i}`}
              label="Values"
              help="Separated by commas, e.g. 4, 16."
              placeholder="4, 16"
              value={a.values}
              error={problem(i, 'values')}
              onChange={(values) => edit(i, { values })}
            />
            <button
              type="button"
              aria-label={`Remove ${a.flag.trim() || 'this varied setting'}`}
              onClick={() => updateSweepAxes(axes.filter((_, j) => j !== i))}
            >
              Remove
            </button>
          </div>
        ))}
        <button type="button" onClick={() => updateSweepAxes([...axes, EMPTY])} data-testid="add-variant-axis">
          Add a varied setting
        </button>
      </fieldset>
      {plan && plan.variants.length > 0 && (
        <table className="variant-list" data-testid="variant-list">
          <caption>
            {plan.variants.length} variants · run them as a sweep in the Run view{' '}
            <button type="button" className="link" onClick={() => setView('run')}>
              Go to Run
            </button>
          </caption>
          <thead>
            <tr>
              <th scope="col">Variant</th>
              <th scope="col">Settings</th>
              <th scope="col">Command</th>
            </tr>
          </thead>
          <tbody>
            {plan.variants.map((v) => (
              <tr key={v.letter} data-variant={v.letter}>
                <th scope="row">{v.letter}</th>
                <td>
                  <code>{v.label}</code>
                </td>
                <td>
                  <code className="variant-command">{v.display}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/** One field of a varied setting, marked invalid with main's reason. */
function AxisField(props: {
  id: string;
  label: string;
  help: string;
  placeholder: string;
  value: string;
  error: string | null;
  onChange: (value: string) => void;
}) {
  return (
    <Field id={props.id} label={props.label} help={props.help} error={props.error}>
      <input
        id={props.id}
        value={props.value}
        placeholder={props.placeholder}
        autoComplete="off"
        spellCheck={false}
        {...invalidProps(props.id, props.error)}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      />
    </Field>
  );
}
