/** The Run view's matrix: a preset, the contexts and requests at once, and how each cell is measured. */
import { useApp } from '../../store';
import { RUN_PRESETS } from '../../store/run-slice';
import { DEFAULT_CONCURRENCY_WORDS } from '#shared/default-concurrency';
import { fmtContext, parseTokenCount } from '../../format';
import { Field } from '../../components/ui';
import { Chips } from './Chips';

const parseCount = (t: string): number | null => {
  const v = Number(t.trim());
  return Number.isInteger(v) && v > 0 ? v : null;
};

export function MatrixForm({ running }: { running: boolean }) {
  return (
    <fieldset className="run-form" disabled={running}>
      <legend>Matrix</legend>
      <MatrixChips />
      <MethodFields />
    </fieldset>
  );
}

/** The preset, and the contexts, requests at once and prefill contexts as chips. */
function MatrixChips() {
  const form = useApp((s) => s.runForm);
  const addChip = useApp((s) => s.addChip);
  const removeChip = useApp((s) => s.removeChip);
  const applyPreset = useApp((s) => s.applyPreset);
  const setPrefillChips = useApp((s) => s.setPrefillChips);
  const prefillFollows = form.prefillContexts.length === 0;
  const prefillShown = prefillFollows ? form.contexts.filter((c) => c > 0) : form.prefillContexts;
  return (
    <>
      <div className="presets">
        <label htmlFor="preset">Preset</label>
        <select id="preset" value="" onChange={(e) => e.currentTarget.value && applyPreset(e.currentTarget.value)}>
          <option value="">Choose a preset…</option>
          {RUN_PRESETS.map((p) => (
            <option key={p.id} value={p.id}>
              {p.label}
            </option>
          ))}
        </select>
      </div>
      <Chips
        id="contexts"
        label="Contexts"
        values={form.contexts}
        format={fmtContext}
        parse={parseTokenCount}
        expects="a token count such as 8k or 32768"
        onAdd={(v) => addChip('contexts', v)}
        onRemove={(v) => removeChip('contexts', v)}
        placeholder="e.g. 8k"
      />
      <Chips
        id="concurrency"
        label="Requests at once"
        values={form.concurrency}
        format={String}
        parse={parseCount}
        expects="a whole number of requests above 0, such as 8"
        onAdd={(v) => addChip('concurrency', v)}
        onRemove={(v) => removeChip('concurrency', v)}
        placeholder="e.g. 16"
        note={<AutomaticNote automatic={form.concurrency.length === 0} />}
      />
      <Chips
        id="prefill"
        label="Prefill contexts"
        values={prefillShown}
        format={fmtContext}
        parse={parseTokenCount}
        expects="a token count such as 8k or 32768"
        onAdd={(v) => setPrefillChips([...prefillShown, v])}
        onRemove={(v) => setPrefillChips(prefillShown.filter((x) => x !== v))}
        placeholder="e.g. 128k"
        note={
          prefillFollows ? (
            'Same as the contexts.'
          ) : (
            <button type="button" className="link" onClick={() => setPrefillChips(null)}>
              Same as the contexts
            </button>
          )
        }
      />
    </>
  );
}

/** Under the requests at once: the levels automatic gives, or the way back to them from the person's own. */
function AutomaticNote({ automatic }: { automatic: boolean }) {
  const update = useApp((s) => s.updateRunForm);
  if (automatic) return <>Automatic: {DEFAULT_CONCURRENCY_WORDS}. Add a level to choose your own.</>;
  return (
    <button type="button" className="link" onClick={() => update({ concurrency: [] })}>
      Automatic ({DEFAULT_CONCURRENCY_WORDS})
    </button>
  );
}

/** How each cell is measured: its window, precision, output, prompt shape, repeats and token targeting. */
function MethodFields() {
  const form = useApp((s) => s.runForm);
  const update = useApp((s) => s.updateRunForm);
  /** "Stop each cell at ±P%" is on (docs/adaptive-precision.md). */
  const adaptive = typeof form.precisionPercent === 'number';
  return (
    <div className="form-grid">
      <Field
        id="run-seconds"
        label={adaptive ? 'Longest measurement (s)' : 'Seconds per measurement'}
        help={
          adaptive
            ? 'A decode cell that has not reached its precision by then stops here and says so. Default: 30 s.'
            : "Length of each decode cell's measurement window. Default: 30 s."
        }
      >
        <input
          id="run-seconds"
          type="number"
          min={1}
          step="any"
          value={form.secondsPerMeasurement}
          onChange={(e) => update({ secondsPerMeasurement: Number(e.currentTarget.value) || 1 })}
        />
      </Field>
      <Field
        id="run-precision"
        label="Stop each cell at ±P%"
        help="Measure each decode cell only until the 95% interval of its total tok/s is within ±P% (at least the shortest window, at most the longest); prefill repeats its prompt until the same or a cap."
      >
        <span className="checks">
          <input
            id="run-precision-on"
            type="checkbox"
            aria-label="Stop each cell at a precision"
            checked={adaptive}
            onChange={(e) => update({ precisionPercent: e.currentTarget.checked ? 1 : null })}
          />
          <input
            id="run-precision"
            type="number"
            min={0.1}
            max={50}
            step="any"
            disabled={form.precisionPercent === null}
            value={form.precisionPercent ?? 1}
            onChange={(e) =>
              update({ precisionPercent: Math.min(50, Math.max(0.1, Number(e.currentTarget.value) || 1)) })
            }
          />
          %
        </span>
      </Field>
      {adaptive ? (
        <Field
          id="run-min-seconds"
          label="Shortest measurement (s)"
          help="No decode cell stops for precision before this. Default: 5 s."
        >
          <input
            id="run-min-seconds"
            type="number"
            min={1}
            step="any"
            value={form.minSecondsPerMeasurement ?? 5}
            onChange={(e) => update({ minSecondsPerMeasurement: Number(e.currentTarget.value) || 5 })}
          />
        </Field>
      ) : null}
      <Field id="run-maxout" label="Max output (tokens)" help="max_tokens for each request. Default: 4,096 tokens.">
        <input
          id="run-maxout"
          type="number"
          min={1}
          disabled={Boolean(form.outputLen?.trim())}
          value={form.maxOutputTokens}
          onChange={(e) => update({ maxOutputTokens: Math.max(1, Math.round(Number(e.currentTarget.value) || 1)) })}
        />
      </Field>
      <Field
        id="run-output-len"
        label="Output length (tokens)"
        help="Each request's max_tokens drawn from 256, a range 128-512 or normal 256~64, in place of Max output. Empty: Max output."
      >
        <input
          id="run-output-len"
          placeholder="Max output"
          value={form.outputLen ?? ''}
          onChange={(e) => update({ outputLen: e.currentTarget.value })}
        />
      </Field>
      <Field
        id="run-shared-prefix"
        label="Shared prefix (tokens)"
        help="The same text of about this many tokens first in every prompt, for prefix caching; prefills then compute the rest. 0: none."
      >
        <input
          id="run-shared-prefix"
          type="number"
          min={0}
          value={form.sharedPrefix ?? 0}
          onChange={(e) => update({ sharedPrefix: Math.max(0, Math.round(Number(e.currentTarget.value) || 0)) })}
        />
      </Field>
      <Field
        id="run-repeat"
        label="Repeat each cell"
        help="Measure every cell this many times, in passes over the whole matrix; figures are then means with a 95% interval. Default: 1."
      >
        <input
          id="run-repeat"
          type="number"
          min={1}
          max={100}
          step={1}
          value={form.repeat}
          onChange={(e) =>
            update({ repeat: Math.min(100, Math.max(1, Math.round(Number(e.currentTarget.value) || 1))) })
          }
        />
      </Field>
      <Field
        id="run-targeting"
        label="Token targeting"
        help="Exact sizes prompts with the server's /tokenize; estimate skips that."
      >
        <select
          id="run-targeting"
          value={form.tokenTargeting}
          onChange={(e) => update({ tokenTargeting: e.currentTarget.value as 'exact' | 'estimate' })}
        >
          <option value="exact">Exact (/tokenize)</option>
          <option value="estimate">Estimate</option>
        </select>
      </Field>
    </div>
  );
}
