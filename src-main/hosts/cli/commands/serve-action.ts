/**
 * The body of `speedmatrix serve`: a server under the supervisor until Ctrl-C, written down in
 * the launched-server registry while it runs.
 */
import { fmtCount, fmtDuration } from '#shared/report/format';
import { kvBudgetOrigin } from '#shared/report/report-blocks';
import { startTimeText } from '#shared/report/start-time';
import { launchOptionsFromCommand } from '../../../engine/server/command-line';
import { buildLaunch } from '../../../engine/server/launch';
import { killGroupNow } from '../../../engine/server/orphans';
import { Supervisor } from '../../../engine/server/supervisor';
import type { StopReport } from '../../../engine/server/supervisor-types';
import type { ServerTarget } from '../../../engine/server/target';
import { LaunchedRegistry } from '../../../engine/server/launched-registry';
import type { ServeFlags } from './flag-types';
import { EXIT } from './exit';
import { offerToEndLeftovers } from './leftovers';

/** The ready line: URL, model, max_model_len, KV budget and its source. */
export function readyLine(t: ServerTarget): string {
  const kv =
    t.kvBudget.tokens !== null ? `${fmtCount(t.kvBudget.tokens)} tokens (${kvBudgetOrigin(t.kvBudget)})` : 'unknown';
  const mml = t.maxModelLen !== null ? `${fmtCount(t.maxModelLen)} tokens` : 'unknown';
  return `READY  ${t.baseUrl}  model ${t.model}  max_model_len ${mml}  KV budget ${kv}  engine ${t.engine.name} ${t.engine.version ?? ''}`.trimEnd();
}

const positive = (name: string, v: string): number => {
  const n = Number(v);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number of seconds, got "${v}"`);
  return n;
};

/** `speedmatrix serve -- CMD...`; returns the exit code. */
export async function serveCommand(cmd: string[], o: ServeFlags): Promise<number> {
  let readyTimeoutMs: number;
  let stopTimeoutMs: number;
  let launch;
  try {
    readyTimeoutMs = positive('--ready-timeout', o.readyTimeout) * 1000;
    stopTimeoutMs = positive('--stop-timeout', o.stopTimeout) * 1000;
    launch = launchOptionsFromCommand(cmd);
  } catch (e) {
    process.stderr.write(`speedmatrix serve: ${(e as Error).message}\n`);
    return EXIT.usage;
  }
  const registry = new LaunchedRegistry();
  await offerToEndLeftovers(registry, Boolean(o.yes), (t) => process.stderr.write(`${t}\n`));
  const out = (event: string, text: string, data: Record<string, unknown> = {}) =>
    process.stdout.write(o.json ? `${JSON.stringify({ event, ...data })}\n` : `${text}\n`);
  const sup = new Supervisor();
  registry.track(sup, launch.port);
  let lastPhase = '';
  let lastPrinted = 0;
  sup.on('progress', (p) => {
    // Print on phase changes and every 15 s, so a long download still shows life.
    if (p.phase === lastPhase && p.elapsedMs - lastPrinted < 15_000) return;
    lastPhase = p.phase;
    lastPrinted = p.elapsedMs;
    out('progress', `...    ${fmtDuration(p.elapsedMs / 1000).padStart(9)}  ${p.phase}`, p);
  });
  // The server's own log (API key redacted) goes to stderr, so stdout stays the progress/ready/stop lines;
  // with --json it is an event of its own (`log`), which the app shows in its Server log for a server on a remote host.
  sup.on('log', (line) => (o.json ? out('log', line, { line }) : process.stderr.write(`  | ${line}\n`)));
  let interrupted = false;
  let stopReport: Promise<StopReport> | null = null;
  const onSignal = () => {
    if (interrupted) {
      // A second Ctrl-C: do not wait for the stop timeout.
      out('forcing', 'Killing the server now (SIGKILL to its process group)...');
      if (sup.pid) killGroupNow(sup.pid);
      return;
    }
    interrupted = true;
    out('stopping', 'Stopping the server...');
    stopReport = sup.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  sup.on('crashed', (c) => {
    out(
      'crashed',
      `CRASHED  the server exited (${c.signal ?? `code ${c.exitCode}`}) while ready${c.orphans.length ? `; killed ${c.orphans.length} orphaned process(es)` : ''}. Last lines:\n${c.lastLines
        .slice(-15)
        .map((l) => `  | ${l}`)
        .join('\n')}`,
      {
        exitCode: c.exitCode,
        signal: c.signal,
        lastLines: c.lastLines,
        orphans: c.orphans,
      },
    );
  });
  out('launch', `Launching: ${buildLaunch(launch).display}`, { command: buildLaunch(launch).display });
  const started = await sup.start(launch, { readyTimeoutMs, stopTimeoutMs, logFile: o.logFile });
  if (!started.ok) {
    const f = started.error;
    if (!interrupted) {
      out(
        'failed',
        [`FAILED  ${f.message}`, ...f.rootCauseLines.map((l) => `  root cause: ${l}`), `  advice: ${f.advice}`].join(
          '\n',
        ),
        { failure: f },
      );
    }
    const rep = stopReport ? await stopReport : await sup.stop();
    out('stopped', rep.summary, { report: rep });
    cleanup();
    return interrupted ? EXIT.cancelled : EXIT.failed;
  }
  const t = started.data;
  const start = startTimeText(t.launch.startPhases);
  out('ready', `${readyLine(t)}${start ? `\nStarted in ${start}` : ''}\nPress Ctrl-C to stop the server.`, {
    target: { ...t, apiKey: undefined },
  });
  await new Promise<void>((resolve) => {
    if (interrupted || sup.state !== 'ready') return resolve();
    sup.once('exited', () => resolve());
  });
  const rep = stopReport ? await stopReport : await sup.stop();
  out('stopped', rep.summary, { report: rep });
  cleanup();
  return interrupted && rep.leftBehind.length === 0 ? EXIT.ok : EXIT.failed;

  function cleanup() {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}
