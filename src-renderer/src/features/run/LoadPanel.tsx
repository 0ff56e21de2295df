/**
 * The Run view's Load mode (docs/load.md): request rates as chips or a sweep, the workload's
 * shape, Start and Stop, the pass measured now, and the throughput and latency charts and the
 * passes' table filling in. Main runs it on `speedmatrix load`'s engine and checks the form by
 * its rules; the finished run opens as a load session in Results.
 */
import type { LoadForm } from '#shared/ipc/forms';
import type { Result } from '#shared/result';
import { arrivalsRule, fieldWords, lengthRule, rateOf, sloRule } from '#shared/load-input-rules';
import { LOAD_COLUMNS, loadRow } from '#shared/report/load-model';
import { useMemo } from 'react';
import { LoadLatencyChart, LoadThroughputChart } from '../../charts/LoadCharts';
import { ModelTable } from '../../components/ModelTable';
import { Field, invalidProps } from '../../components/ui';
import { fmtRate, plural } from '../../format';
import { useApp } from '../../store';
import { startLoad, stopLoad } from '../../store/actions';
import { loadBusy } from '../../store/load-slice';
import { Chips } from './Chips';
import { TracePicker } from './TracePicker';
import { ConversationFields, conversationErrors } from './ConversationFields';

/** A number field as typed: empty or not a number is NaN, so the field says what it takes. */
const typed = (text: string): number => (text.trim() === '' ? NaN : Number(text));
const shown = (v: number): number | '' => (Number.isFinite(v) ? v : '');

/** A rule's sentence, or null when the text passes it. */
function problem<T>(r: Result<T>): string | null {
  return r.ok ? null : r.error;
}

/**
 * The form checked at its fields, in the form's words (null: fine), by the rules the CLI's `load`
 * uses (src-shared/load-input-rules.ts), so a bad value waits at its field instead of failing Start.
 */
function loadFieldErrors(form: LoadForm) {
  return {
    arrivals: problem(arrivalsRule(fieldWords('Arrivals'), form.arrivals)),
    sweepPoints:
      !form.sweep || (Number.isInteger(form.sweepPoints) && form.sweepPoints >= 1 && form.sweepPoints <= 64)
        ? null
        : 'Give how many rates to spread between: a whole number from 1 to 64.',
    maxInFlight:
      form.maxInFlight === null || (Number.isInteger(form.maxInFlight) && form.maxInFlight > 0)
        ? null
        : 'Give the most requests in flight: a whole number above 0, or leave it empty for no cap.',
    duration: form.durationSeconds > 0 ? null : 'Give the seconds measured at each rate: a number above 0.',
    warmup: form.warmupSeconds >= 0 ? null : 'Give the warm-up seconds: 0 or more.',
    inputLen: problem(lengthRule(fieldWords('Input'), form.inputLen)),
    outputLen: problem(lengthRule(fieldWords('Output'), form.outputLen)),
    // Empty: no targets.
    slo: form.slo.trim() ? problem(sloRule(fieldWords('Targets'), form.slo)) : null,
    ...conversationErrors(form),
  };
}

export function LoadPanel({ otherRunGoing }: { otherRunGoing: boolean }) {
  const form = useApp((s) => s.loadForm);
  const update = useApp((s) => s.updateLoadForm);
  const busy = useApp((s) => loadBusy(s.load));
  const serverState = useApp((s) => s.server.state);
  const error = useApp((s) => s.loadError);
  const fieldErrors = loadFieldErrors(form);
  const tracing = Boolean(form.trace);
  const fieldsOk = tracing || Object.values(fieldErrors).every((e) => e === null);
  const canStart =
    !busy && !otherRunGoing && serverState === 'ready' && fieldsOk && (tracing || form.sweep || form.rates.length > 0);
  const passes = form.sweep ? form.sweepPoints + 2 : form.rates.length;
  return (
    <>
      <fieldset className="run-form" disabled={busy || otherRunGoing} data-testid="load-form">
        <legend>Load</legend>
        <TracePicker />
        {!tracing && (
          <div className="kinds" role="radiogroup" aria-label="Rates">
            <label className={`kind${form.sweep ? '' : ' on'}`}>
              <input type="radio" name="load-rates" checked={!form.sweep} onChange={() => update({ sweep: false })} />
              <span>Rates</span>
            </label>
            <label className={`kind${form.sweep ? ' on' : ''}`}>
              <input type="radio" name="load-rates" checked={form.sweep} onChange={() => update({ sweep: true })} />
              <span>Sweep</span>
            </label>
          </div>
        )}
        {tracing ? null : form.sweep ? (
          <Field
            id="load-sweep-points"
            label="Rates between"
            help="A synchronous pass (one request at a time), a throughput pass, then this many rates spread between them. Default: 8."
            error={fieldErrors.sweepPoints}
          >
            <input
              id="load-sweep-points"
              type="number"
              min={1}
              max={64}
              value={shown(form.sweepPoints)}
              onChange={(e) => update({ sweepPoints: typed(e.currentTarget.value) })}
              {...invalidProps('load-sweep-points', fieldErrors.sweepPoints)}
            />
          </Field>
        ) : (
          <Chips
            id="rates"
            label="Request rates (req/s)"
            values={form.rates}
            format={fmtRate}
            parse={rateOf}
            expects="a rate above 0 requests per second, such as 0.5 or 4"
            onAdd={(v) => update({ rates: [...form.rates.filter((r) => r !== v), v].sort((a, b) => a - b) })}
            onRemove={(v) => update({ rates: form.rates.filter((r) => r !== v) })}
            placeholder="e.g. 2"
          />
        )}
        {!tracing && <LoadShape />}
        {!tracing && <ConversationFields />}
      </fieldset>
      <div className="actions">
        <button
          type="button"
          className="primary"
          onClick={() => void startLoad()}
          disabled={!canStart}
          data-testid="start-load"
        >
          Start load
        </button>
        <button type="button" onClick={() => void stopLoad()} disabled={!busy} data-testid="stop-load">
          Stop
        </button>
        {!busy && !fieldsOk && (
          <span className="muted" data-testid="load-waits">
            Fix the marked fields first.
          </span>
        )}
        {!busy && tracing && (
          <span className="muted" data-testid="load-plan">
            1 pass: the trace replayed at its own times
          </span>
        )}
        {!busy && !tracing && fieldsOk && (
          <span className="muted" data-testid="load-plan">
            {plural(passes, 'pass', 'passes')} · each {form.warmupSeconds} s warm-up and {form.durationSeconds} s
            measured
          </span>
        )}
      </div>
      {error && (
        <p className="error" role="alert" data-testid="load-error">
          {error}
        </p>
      )}
      <LoadProgress />
      <LoadLive />
    </>
  );
}

/** How requests arrive and what they ask: the `load` command's flags in the flags' own forms. */
function LoadShape() {
  const form = useApp((s) => s.loadForm);
  const errors = loadFieldErrors(form);
  const update = useApp((s) => s.updateLoadForm);
  const text = (id: keyof typeof form) => ({
    value: String(form[id] ?? ''),
    onChange: (e: { currentTarget: { value: string } }) => update({ [id]: e.currentTarget.value }),
  });
  return (
    <div className="form-grid">
      <Field
        id="load-arrivals"
        label="Arrivals"
        help="poisson (the default), constant (even gaps) or gamma:CV (CV above 1 comes in bursts)."
        error={errors.arrivals}
      >
        <input id="load-arrivals" {...text('arrivals')} {...invalidProps('load-arrivals', errors.arrivals)} />
      </Field>
      <Field
        id="load-max-in-flight"
        label="Most in flight"
        help="A cap on requests open at once; arrivals past it wait and the rate is not kept up. Empty: no cap."
        error={errors.maxInFlight}
      >
        <input
          id="load-max-in-flight"
          type="number"
          min={1}
          value={form.maxInFlight === null ? '' : shown(form.maxInFlight)}
          onChange={(e) =>
            update({ maxInFlight: e.currentTarget.value.trim() === '' ? null : typed(e.currentTarget.value) })
          }
          {...invalidProps('load-max-in-flight', errors.maxInFlight)}
        />
      </Field>
      <Field
        id="load-duration"
        label="Seconds per rate"
        help="Measured seconds of arrivals at each rate."
        error={errors.duration}
      >
        <input
          id="load-duration"
          type="number"
          min={1}
          step="any"
          value={shown(form.durationSeconds)}
          onChange={(e) => update({ durationSeconds: typed(e.currentTarget.value) })}
          {...invalidProps('load-duration', errors.duration)}
        />
      </Field>
      <Field
        id="load-warmup"
        label="Warm-up (s)"
        help="Seconds of arrivals before each rate's window, not measured."
        error={errors.warmup}
      >
        <input
          id="load-warmup"
          type="number"
          min={0}
          step="any"
          value={shown(form.warmupSeconds)}
          onChange={(e) => update({ warmupSeconds: typed(e.currentTarget.value) })}
          {...invalidProps('load-warmup', errors.warmup)}
        />
      </Field>
      <Field
        id="load-input-len"
        label="Input (tokens)"
        help="1024, a range 512-2048, or normal 1024~256."
        error={errors.inputLen}
      >
        <input id="load-input-len" {...text('inputLen')} {...invalidProps('load-input-len', errors.inputLen)} />
      </Field>
      <Field
        id="load-output-len"
        label="Output (tokens)"
        help="The same forms; each answer runs to its length."
        error={errors.outputLen}
      >
        <input id="load-output-len" {...text('outputLen')} {...invalidProps('load-output-len', errors.outputLen)} />
      </Field>
      <Field
        id="load-slo"
        label="Targets"
        help="Per-request targets for goodput, e.g. ttft<=500ms,tbt<=50ms. Empty: none."
        error={errors.slo}
      >
        <input
          id="load-slo"
          placeholder="ttft<=500ms,tbt<=50ms"
          {...text('slo')}
          {...invalidProps('load-slo', errors.slo)}
        />
      </Field>
    </div>
  );
}

const LOAD_PHASE_WORDS = {
  idle: 'No load run',
  starting: 'Load: starting',
  running: 'Load: measuring',
  done: 'Load: done',
  cancelled: 'Load: stopped',
  failed: 'Load: failed',
} as const;

export function LoadPhaseBadge() {
  const phase = useApp((s) => s.load.phase);
  return (
    <span className="badge" data-testid="load-phase" data-phase={phase}>
      {LOAD_PHASE_WORDS[phase]}
    </span>
  );
}

function LoadProgress() {
  const current = useApp((s) => (loadBusy(s.load) ? s.load.current : null));
  if (!current) return null;
  return (
    <div className="progress" data-testid="load-progress">
      <progress max={current.total} value={current.index} aria-label="Load run progress" />
      <span>
        Pass {current.index + 1} of {current.total}: {current.label} · {plural(current.sent, 'request')} sent,{' '}
        {current.completed} completed
      </span>
    </div>
  );
}

function LoadLive() {
  const load = useApp((s) => s.load);
  const setView = useApp((s) => s.setView);
  const table = useMemo(() => ({ header: [...LOAD_COLUMNS], rows: load.results.map(loadRow) }), [load.results]);
  return (
    <>
      {load.messages.map((m) => (
        <p key={m} className="muted">
          {m}
        </p>
      ))}
      {load.error && (
        <p className="error" role="alert" data-testid="load-run-error">
          {load.error}
        </p>
      )}
      {(load.phase === 'done' || load.phase === 'cancelled') && (
        <p>
          <button type="button" className="primary" onClick={() => setView('results')} data-testid="open-load-results">
            Open in Results
          </button>
        </p>
      )}
      <div className="run-charts">
        <section className="run-prefill">
          <h2>Throughput</h2>
          <LoadThroughputChart results={load.results} />
        </section>
        <section className="run-prefill">
          <h2>Latency</h2>
          <LoadLatencyChart results={load.results} />
        </section>
      </div>
      {load.results.length > 0 && <ModelTable table={table} testId="load-live-table" />}
    </>
  );
}
