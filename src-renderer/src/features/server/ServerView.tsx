/** Server: choose the engine, fill the launch form, preview the command, start/stop, watch the log. */
import { useRef, useState } from 'react';
import type { ServerForm } from '#shared/ipc/forms';
import { KV_SOURCE_WORDS } from '#shared/report/report-blocks';
import { START_TIME_LABEL, startTimeText } from '#shared/report/start-time';
import { useApp } from '../../store';
import { copyText, startServer, stopServer, updateServerForm } from '../../store/actions';
import { fmtContext, fmtCount, NONE } from '../../format';
import { Block, Field, invalidProps } from '../../components/ui';
import { ServerLog } from '../../components/ServerLog';
import { OrphanPanel } from './OrphanPanel';
import { LaunchVariants } from './LaunchVariants';
import { KINDS, TEXT_FIELDS, WHERE, errorsByField } from './server-fields';
import { Elapsed, StatusBadge } from '../../components/StatusBadge';
import { sweepBusy } from '../../store/sweep-slice';

export function ServerView() {
  const form = useApp((s) => s.serverForm);
  const defaults = useApp((s) => s.serverDefaults);
  const preview = useApp((s) => s.preview);
  const previewError = useApp((s) => s.previewError);
  const server = useApp((s) => s.server);
  const serverError = useApp((s) => s.serverError);
  const failureHiddenUpTo = useApp((s) => s.failureHiddenUpTo);
  const simProfiles = useApp((s) => s.appInfo?.simProfiles ?? []);
  const [copied, setCopied] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);
  const sweeping = useApp((s) => sweepBusy(s.sweep));
  const busy = sweeping || server.state === 'starting' || server.state === 'ready' || server.state === 'stopping';

  if (!form) return <p className="muted">Loading the launch options…</p>;
  const dflt = (k: keyof ServerForm): string => (defaults && defaults[k] !== '' ? String(defaults[k]) : '');
  const fieldErrors = form.kind === 'attach' ? {} : errorsByField(previewError, form.kind);
  const invalid = form.kind !== 'attach' && previewError !== null;
  const failure = server.seq > failureHiddenUpTo ? server.failure : null;
  /** Going on with an invalid form (Enter in a field) takes the person to the first field to fix. */
  const focusInvalid = () => {
    const first = TEXT_FIELDS.find((f) => fieldErrors[f.key]);
    if (first) formRef.current?.querySelector<HTMLElement>(`#srv-${first.key}`)?.focus();
  };

  const copy = async () => {
    const text =
      busy && server.display ? (server.powershell ?? server.display) : (preview?.powershell ?? preview?.display);
    if (!text) return;
    if (!(await copyText(text))) return;
    setCopied(true);
    setTimeout(() => setCopied(false), 1500);
  };

  return (
    <section aria-labelledby="srv-title" data-testid="view-server">
      <div className="view-head">
        <h1 id="srv-title">Server</h1>
        <StatusBadge />
      </div>
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
        {form.where === 'ssh' && <RemoteHostFields form={form} error={previewError} />}
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
        {preview?.platformNote && (
          <p className="sim-note" role="note" data-testid="platform-note">
            {preview.platformNote}
          </p>
        )}
      </fieldset>

      <form
        ref={formRef}
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          focusInvalid();
        }}
      >
        <fieldset className="form-grid" disabled={busy}>
          <legend>Launch options</legend>
          {TEXT_FIELDS.filter((f) => f.kinds.includes(form.kind)).map((f) => {
            const id = `srv-${f.key}`;
            const d = dflt(f.key);
            const error = fieldErrors[f.key] ?? null;
            const props = {
              id,
              value: form[f.key],
              placeholder: d,
              ...invalidProps(id, error),
              onChange: (e: { currentTarget: { value: string } }) =>
                updateServerForm({ [f.key]: e.currentTarget.value }),
            };
            return (
              <Field
                key={f.key}
                id={id}
                label={f.label}
                help={`${f.key === 'simProfile' ? profileHelp(simProfiles, form.simProfile, f.help) : f.help}${d ? ` Default: ${d}.` : ''}`}
                error={error}
              >
                {f.key === 'simProfile' ? (
                  <ProfileSelect {...props} profiles={simProfiles} />
                ) : f.multiline ? (
                  <textarea rows={3} {...props} />
                ) : (
                  <input type={f.secret ? 'password' : 'text'} autoComplete="off" spellCheck={false} {...props} />
                )}
              </Field>
            );
          })}
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
                onChange={(e) =>
                  updateServerForm({ port: e.currentTarget.value ? Number(e.currentTarget.value) : null })
                }
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
          {(form.kind === 'vllm-native' || form.kind === 'vllm-docker' || form.kind === 'simulator') && (
            <div className="checks">
              <label>
                <input
                  type="checkbox"
                  checked={form.enablePrefixCaching}
                  onChange={(e) => updateServerForm({ enablePrefixCaching: e.currentTarget.checked })}
                />{' '}
                Prefix caching
              </label>
              {form.kind !== 'simulator' && (
                <label>
                  <input
                    type="checkbox"
                    checked={form.trustRemoteCode}
                    onChange={(e) => updateServerForm({ trustRemoteCode: e.currentTarget.checked })}
                  />{' '}
                  Trust remote code
                </label>
              )}
            </div>
          )}
        </fieldset>
        <button type="submit" hidden tabIndex={-1} />
      </form>
      <LaunchVariants />

      {form.kind !== 'attach' && (
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
      )}

      {/* Pinned to the window's bottom edge while the form runs below the fold, so Start is always in reach. */}
      <div className="actions pinned-actions">
        <button
          type="button"
          className="primary"
          onClick={() => void startServer()}
          disabled={busy || invalid}
          data-testid="start-server"
        >
          {form.kind === 'attach' ? 'Attach' : 'Start server'}
        </button>
        <button
          type="button"
          onClick={() => void stopServer()}
          disabled={sweeping || (server.state !== 'starting' && server.state !== 'ready')}
          data-testid="stop-server"
        >
          {server.kind === 'attach' ? 'Detach' : 'Stop server'}
        </button>
        {server.state === 'starting' && <Elapsed since={server.startedAt} progress={server.progress} />}
      </div>
      {sweeping && (
        <p className="hint" role="note" data-testid="server-held">
          A sweep is running{server.sweepVariant ? `: this is variant ${server.sweepVariant}` : ''}. It starts and stops
          each variant&apos;s server itself; stop the sweep in the Run view.
        </p>
      )}
      {serverError && (
        <p className="error" role="alert">
          {serverError}
        </p>
      )}
      <OrphanPanel />
      {failure && (
        <section className="failure" role="alert" data-testid="server-failure">
          <h2>{server.kind === 'attach' ? 'Could not attach to the server' : 'The server did not start'}</h2>
          <p>{failure.message}</p>
          {failure.advice && <p className="advice">{failure.advice}</p>}
          {failure.lines.length > 0 && <pre className="log-excerpt">{failure.lines.join('\n')}</pre>}
        </section>
      )}
      {/* The facts of a server that is up; one that stopped (a sweep's last variant) is Ready no more. */}
      {server.ready && server.state === 'ready' && (
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
      )}
      <ServerLog />
    </section>
  );
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

/** The --port value of a previewed command line. */
function portOf(argv: string[]): string | null {
  const i = argv.indexOf('--port');
  return i >= 0 && i + 1 < argv.length ? argv[i + 1] : null;
}

/** What the chosen simulated profile (or the default, the first) is, in its own words; a profile file has none. */
function profileHelp(profiles: { name: string; description: string }[], chosen: string, fallback: string): string {
  const p = profiles.find((x) => x.name === (chosen || profiles[0]?.name));
  return p?.description ? `${p.name}: ${p.description}` : fallback;
}

/** The simulator's built-in profiles as a list; a profile file typed elsewhere stays selectable. */
function ProfileSelect(props: {
  id: string;
  value: string;
  profiles: { name: string; description: string }[];
  onChange: (e: { currentTarget: { value: string } }) => void;
  'aria-describedby'?: string;
}) {
  const { profiles, ...rest } = props;
  const known = profiles.some((p) => p.name === props.value) || props.value === '';
  return (
    <select {...rest}>
      <option value="">Default ({profiles[0]?.name ?? 'built-in'})</option>
      {profiles.map((p) => (
        <option key={p.name} value={p.name} title={p.description}>
          {p.name}
        </option>
      ))}
      {!known && <option value={props.value}>{props.value} (file)</option>}
    </select>
  );
}
