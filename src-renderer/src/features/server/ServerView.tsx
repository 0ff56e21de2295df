/** Server: choose the engine, fill the launch form, preview the command, start/stop, watch the log. */
import { useRef } from 'react';
import type { ServerForm } from '#shared/ipc/forms';
import { useApp } from '../../store';
import { startServer, stopServer, updateServerForm } from '../../store/actions';
import { Field, invalidProps } from '../../components/ui';
import { ServerLog } from '../../components/ServerLog';
import { OrphanPanel } from './OrphanPanel';
import { LaunchVariants } from './LaunchVariants';
import { TEXT_FIELDS, errorsByField } from './server-fields';
import { CommandPreviewSection, MoreLaunchFields, ReadyBlock, WhereAndEngine } from './ServerParts';
import { Elapsed, StatusBadge } from '../../components/StatusBadge';
import { sweepBusy } from '../../store/sweep-slice';

/** What the core says of the SSH fields starts with their label (remote-host.ts). */
const SSH_FIELD_ERROR = /^SSH (host|options):/;

export function ServerView() {
  const form = useApp((s) => s.serverForm);
  const defaults = useApp((s) => s.serverDefaults);
  const preview = useApp((s) => s.preview);
  const previewError = useApp((s) => s.previewError);
  const server = useApp((s) => s.server);
  const serverError = useApp((s) => s.serverError);
  const failureHiddenUpTo = useApp((s) => s.failureHiddenUpTo);
  const simProfiles = useApp((s) => s.appInfo?.simProfiles ?? []);
  const formRef = useRef<HTMLFormElement>(null);
  const sweeping = useApp((s) => sweepBusy(s.sweep));
  const busy = sweeping || server.state === 'starting' || server.state === 'ready' || server.state === 'stopping';

  if (!form) return <p className="muted">Loading the launch options…</p>;
  const dflt = (k: keyof ServerForm): string => (defaults && defaults[k] !== '' ? String(defaults[k]) : '');
  const fieldErrors = form.kind === 'attach' ? {} : errorsByField(previewError, form.kind);
  const invalid = form.kind !== 'attach' && previewError !== null;
  const failure = server.seq > failureHiddenUpTo ? server.failure : null;
  // A start refused for the SSH host or options is said at those fields, up by the form, not below it.
  const sshStartError = form.where === 'ssh' && serverError && SSH_FIELD_ERROR.test(serverError) ? serverError : null;
  const sshFieldErrors = [previewError, sshStartError].filter(Boolean).join('\n') || null;
  /** Going on with an invalid form (Enter in a field) takes the person to the first field to fix. */
  const focusInvalid = () => {
    const first = TEXT_FIELDS.find((f) => fieldErrors[f.key]);
    if (first) formRef.current?.querySelector<HTMLElement>(`#srv-${first.key}`)?.focus();
  };

  return (
    <section aria-labelledby="srv-title" data-testid="view-server">
      <div className="view-head">
        <h1 id="srv-title">Server</h1>
        <StatusBadge />
      </div>
      <WhereAndEngine form={form} busy={busy} sshError={sshFieldErrors} platformNote={preview?.platformNote} />

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
          <MoreLaunchFields form={form} />
        </fieldset>
        <button type="submit" hidden tabIndex={-1} />
      </form>
      <LaunchVariants />

      {form.kind !== 'attach' && <CommandPreviewSection busy={busy} />}

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
      {serverError && !sshStartError && (
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
      <ReadyBlock />
      <ServerLog />
    </section>
  );
}

/** The --port value of a previewed command line. */

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
