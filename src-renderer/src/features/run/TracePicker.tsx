/**
 * The Load form's trace replay (docs/load.md, "Replaying a trace"): a Mooncake trace file picked
 * with the file dialog, replayed at its own arrival times (times its speed), with its own lengths
 * and shared prefixes, in place of the form's rates and lengths.
 */
import { Field } from '../../components/ui';
import { fmtSettingSeconds, plural } from '../../format';
import { useApp } from '../../store';
import { chooseTrace } from '../../store/actions';

export function TracePicker() {
  const trace = useApp((s) => s.loadTrace);
  const speed = useApp((s) => s.loadForm.trace?.speed ?? 1);
  const update = useApp((s) => s.updateLoadForm);
  const setTrace = useApp((s) => s.setLoadTrace);
  return (
    <div className="form-grid" data-testid="trace-picker">
      <Field
        id="load-trace"
        label="Trace"
        help='JSON Lines in the Mooncake format: {"timestamp": ms, "input_length", "output_length", "hash_ids"}; equal hash ids share a 512-token prefix.'
      >
        <span>
          <button type="button" id="load-trace" onClick={() => void chooseTrace()} data-testid="choose-trace">
            Trace file…
          </button>{' '}
          {trace ? (
            <span data-testid="trace-summary">
              {trace.name}: {plural(trace.requests, 'request')} over {fmtSettingSeconds(trace.spanSeconds / speed)}{' '}
              <button type="button" onClick={() => setTrace(null)} data-testid="clear-trace">
                Clear
              </button>
            </span>
          ) : (
            <span className="muted">none: the rates and lengths below are offered</span>
          )}
        </span>
      </Field>
      {trace && (
        <Field id="load-trace-speed" label="Speed (×)" help="Replay this many times as fast: 2 halves every gap.">
          <input
            id="load-trace-speed"
            type="number"
            min={0.01}
            step="any"
            value={speed}
            onChange={(e) => {
              const v = Number(e.currentTarget.value);
              if (Number.isFinite(v) && v > 0) update({ trace: { file: trace.file, speed: v } });
            }}
          />
        </Field>
      )}
    </div>
  );
}
