/** The Server view's parts: where and which engine, the launch fields past the text ones, the command, the ready server. */
import { useState } from 'react';
import type { ServerForm } from '#shared/ipc/forms';
import { KV_SOURCE_WORDS } from '#shared/report/report-blocks';
import { START_TIME_LABEL, startTimeText } from '#shared/report/start-time';
import { SWITCH_SETTINGS } from '#shared/server/launch-settings';
import { useApp } from '../../store';
import { copyText, updateServerForm } from '../../store/actions';
import { fmtContext, fmtCount, NONE } from '../../format';
import { Block, Field, invalidProps } from '../../components/ui';
import { KINDS, WHERE } from './server-fields';

/** Where the server runs (this machine or a remote host) and which engine. */
export function WhereAndEngine(props: {
  form: ServerForm;
  busy: boolean;
  /** What is wrong with the SSH host or options (the preview's check, or a start refused for them). */
  sshError: string | null;
  platformNote?: string | null;
}) {
  const { form, busy, sshError } = props;
  return (
    <>
      <fieldset className="kinds" disabled={busy}>
        <legend>Where</legend>
        {WHERE.map((w) => (
          <label key={w.id} className={`kind${form.where === w.id ? ' on' : ''}`} title={w.help}>
            <input
              type="radio"
              name="where"
              value={w.id}
              checked={form.where === w.id}
              onChange={() =>
                updateServerForm({
                  where: w.id,
                  ...(w.id === 'ssh' && form.kind === 'attach' ? { kind: 'simulator' } : {}),
                })
              }
            />
            <span>{w.label}</span>
          </label>
        ))}
        <p className="muted">{WHERE.find((w) => w.id === form.where)?.help}</p>
        {form.where === 'ssh' && <RemoteHostFields form={form} error={sshError} />}
      </fieldset>
      <fieldset className="kinds" disabled={busy}>
        <legend>Engine</legend>
        {KINDS.filter((k) => form.where !== 'ssh' || k.id !== 'attach').map((k) => (
          <label key={k.id} className={`kind${form.kind === k.id ? ' on' : ''}`} title={k.help}>
            <input
              type="radio"
              name="kind"
              value={k.id}
              checked={form.kind === k.id}
              onChange={() => updateServerForm({ kind: k.id })}
            />
            <span>{k.label}</span>
          </label>
        ))}
        <p className="muted">{KINDS.find((k) => k.id === form.kind)?.help}</p>
        {props.platformNote && (
          <p className="sim-note" role="note" data-testid="platform-note">
            {props.platformNote}
          </p>
        )}
      </fieldset>
    </>
  );
}

/** The port, the simulator's speed-up and load time, and the engine's switches. */
export function MoreLaunchFields({ form }: { form: ServerForm }) {
  const defaults = useApp((s) => s.serverDefaults);
  const preview = useApp((s) => s.preview);
  // The launch settings' check boxes this engine takes, from their table.
  const switches = SWITCH_SETTINGS.filter((s) => s.field.kinds.includes(form.kind));
  return (
    <>
      {form.kind !== 'attach' && (
        <Field
          id="srv-port"
          label="Port"
          help={
            form.where === 'ssh'
              ? 'The port on the remote host. Empty: 8000.'
              : 'Empty: a free port is chosen (the command shows which). vLLM shares busy ports silently, so it is checked first.'
          }
        >
          <input
            id="srv-port"
            type="number"
            min={1}
            max={65535}
            value={form.port ?? ''}
            placeholder={
              form.where === 'ssh'
                ? '8000'
                : preview && form.port === null
                  ? `auto (${portOf(preview.argv) ?? 'free'})`
                  : 'auto'
            }
            onChange={(e) => updateServerForm({ port: e.currentTarget.value ? Number(e.currentTarget.value) : null })}
          />
        </Field>
      )}
      {form.kind === 'simulator' && (
        <>
          <Field
            id="srv-simSpeed"
            label="Simulator speed-up"
            help={`The simulated clock runs this many times faster; figures scale with it. Default: ${defaults?.simSpeed ?? 1}×.`}
          >
            <input
              id="srv-simSpeed"
              type="number"
              min={0.1}
              step="any"
              value={form.simSpeed}
              onChange={(e) => updateServerForm({ simSpeed: Number(e.currentTarget.value) || 1 })}
            />
          </Field>
          <Field
            id="srv-simLoad"
            label="Load time (s)"
            help="How long the simulated model takes to load before it answers."
          >
            <input
              id="srv-simLoad"
              type="number"
              min={0}
              step="any"
              value={form.simLoadSeconds}
              onChange={(e) => updateServerForm({ simLoadSeconds: Number(e.currentTarget.value) || 0 })}
            />
          </Field>
        </>
      )}
      {switches.length > 0 && (
        <div className="checks">
          {switches.map((s) => (
            <label key={s.key}>
              <input
                type="checkbox"
                checked={form[s.key]}
                onChange={(e) => updateServerForm({ [s.key]: e.currentTarget.checked })}
              />{' '}
              {s.field.label}
            </label>
          ))}
        </div>
      )}
    </>
  );
}

/** The command as it will run (or runs), with a copy button. */
export function CommandPreviewSection({ busy }: { busy: boolean }) {
  const preview = useApp((s) => s.preview);
  const previewError = useApp((s) => s.previewError);
  const server = useApp((s) => s.server);
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    const text =
      busy && server.display ? (server.powershell ?? server.display) : (preview?.powershell ?? preview?.display);
    if (!text) return;
    if (!(await copyText(text))) return;
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };
  return (
    <section className="preview" aria-label="Command preview">
      <div className="preview-head">
        <h2>{busy ? 'Running command' : 'Command'}</h2>
        <button type="button" onClick={() => void copy()} disabled={!preview && !server.display}>
          {copied
            ? 'Copied'
            : (busy && server.display ? server.powershell : preview?.powershell)
              ? 'Copy as PowerShell'
              : 'Copy'}
        </button>
      </div>
      {busy && server.display ? (
        <pre data-testid="command-preview">{server.display}</pre>
      ) : preview ? (
        <>
          <pre data-testid="command-preview">{preview.display}</pre>
          {preview.warnings?.map((w) => (
            <p className="hint" key={w} data-testid="preview-warning">
              {w}
            </p>
          ))}
        </>
      ) : (
        <p className="error">{previewError ? `Fix the form first: ${previewError}` : 'No preview yet.'}</p>
      )}
    </section>
  );
}

/** The facts of a server that is up; one that stopped (a sweep's last variant) is Ready no more. */
export function ReadyBlock() {
  const server = useApp((s) => s.server);
  if (!server.ready || server.state !== 'ready') return null;
  return (
    <Block
      title="Ready"
      testId="server-ready"
      rows={[
        ['URL', server.sshHost ? `${server.ready.url} on ${server.sshHost}` : server.ready.url],
        ['Model', server.ready.model],
        [
          'max_model_len',
          server.ready.maxModelLen != null
            ? `${fmtCount(server.ready.maxModelLen)} tokens (${fmtContext(server.ready.maxModelLen)})`
            : NONE,
        ],
        [
          'KV budget',
          server.ready.kvBudget.tokens != null
            ? `${fmtCount(server.ready.kvBudget.tokens)} tokens · ${KV_SOURCE_WORDS[server.ready.kvBudget.source]}${server.ready.kvBudget.detail ? ` (${server.ready.kvBudget.detail})` : ''}`
            : `unknown (${KV_SOURCE_WORDS[server.ready.kvBudget.source]})`,
        ],
        ['Engine', [server.ready.engine.name, server.ready.engine.version].filter(Boolean).join(' ') || NONE],
        ...(server.ready.startPhases.length
          ? ([[START_TIME_LABEL, startTimeText(server.ready.startPhases)!]] as [string, string][])
          : []),
        ...(server.ready.simulated
          ? ([['Note', 'Simulated server: figures are not real hardware.']] as [string, string][])
          : []),
      ]}
    />
  );
}

function portOf(argv: string[]): string | null {
  const i = argv.indexOf('--port');
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : null;
}

/** The remote host: what the person's ssh takes, nothing more (the host's hardware shows in the Hardware view). */
function RemoteHostFields({ form, error }: { form: ServerForm; error: string | null }) {
  const hostError = error?.split('\n').find((l) => l.startsWith('SSH host:')) ?? null;
  const optionsError = error?.split('\n').find((l) => l.startsWith('SSH options:')) ?? null;
  return (
    <div className="form-grid remote-host" data-testid="remote-host">
      <Field
        id="srv-sshHost"
        label="SSH host"
        help="An alias from ~/.ssh/config or user@host. It needs speedmatrix of this version or newer (README “On a GPU server”)."
        error={hostError}
      >
        <input
          id="srv-sshHost"
          type="text"
          autoComplete="off"
          spellCheck={false}
          value={form.sshHost}
          placeholder="gpu-box or user@10.0.0.5"
          onChange={(e) => updateServerForm({ sshHost: e.currentTarget.value })}
          {...invalidProps('srv-sshHost', hostError)}
        />
      </Field>
      <Field
        id="srv-sshOptions"
        label="SSH options"
        help="Optional: KEY=VALUE per line, passed on as ssh -o, e.g. Port=2222."
        error={optionsError}
      >
        <textarea
          id="srv-sshOptions"
          {...invalidProps('srv-sshOptions', optionsError)}
          rows={2}
          spellCheck={false}
          value={form.sshOptions}
          onChange={(e) => updateServerForm({ sshOptions: e.currentTarget.value })}
        />
      </Field>
    </div>
  );
}
