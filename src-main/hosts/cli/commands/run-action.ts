/**
 * The body of `speedmatrix run`: checks what can be checked before anything is measured
 * (flags, the output folder, servers an earlier killed run left behind), gets the server
 * (attach or launch), hands it to the run orchestrator and prints what happens.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { ProgressPrinter } from '../../../engine/bench/progress';
import { loadForResume, nothingLeftToResume } from '../../../engine/bench/start-run';
import type { RunConfigInput } from '../../../engine/bench/types';
import { detectHardware } from '../../../platform/hardware/detect';
import {
  RunRefused,
  startOrchestratedRun,
  type OrchestratedRun,
  type ServerSide,
} from '../../../workflows/orchestrator/orchestrator';
import { readHardwareFile } from '../../../workflows/orchestrator/server-hardware';
import { attachServer, launchServer } from '../../../workflows/orchestrator/server-side';
import { fmtCount } from '#shared/report/format';
import { kvBudgetOrigin } from '#shared/report/report-blocks';
import { startTimeText } from '#shared/report/start-time';
import { renderMarkdownReport } from '../../../workflows/report/markdown';
import { launchOptionsFromCommand } from '../../../engine/server/command-line';
import { normalizeBaseUrl } from '../../../engine/server/probe';
import { LaunchedRegistry } from '../../../engine/server/launched-registry';
import type { LaunchOptions } from '../../../engine/server/launch';
import { freePort } from '../../../engine/server/port';
import { Supervisor } from '../../../engine/server/supervisor';
import { SESSION_EXTENSION, type Hardware, type Session } from '#shared/session/schema';
import { summarizeSession } from '../../../platform/session/summary';
import type { RunFlags } from './flag-types';
import { positiveNumber, runConfigFrom } from '../../../workflows/inputs/run-input';
import { EXIT } from './exit';
import { endLaunchedNow, errorWriter, exitCodeFor, onStopSignals, progressConsole, stopSupervised } from './command-io';
import { offerToEndLeftovers } from './leftovers';
import { Refusal, checkWritableFolder } from './out-folder';
import { relaunchOf } from './resume-server';
import { shellLine } from '#shared/shell-quote';

export const DEMO_PROFILE = 'rtx-pro-6000-fara-4b-bf16';
/** The demo's clock speed-up: a 30 s window takes 3 s. */
export const DEMO_SPEED = 10;
/** A compact matrix that shows every status of the reference report's kind in about 2 minutes. */
export const DEMO_CONFIG: RunConfigInput = {
  contexts: [8 * 1024, 32 * 1024, 64 * 1024, 128 * 1024],
  concurrency: [1, 2, 4, 8, 16, 32, 64],
  prefillContexts: [8 * 1024, 32 * 1024, 64 * 1024, 128 * 1024, 256 * 1024],
  secondsPerMeasurement: 30,
};

const safeName = (s: string) =>
  s
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60) || 'model';

/** Default session file: ./speedmatrix-<model>-<date>.speedmatrix.json (speedmatrix-demo-... for --demo). */
export function defaultSessionFile(model: string, demo: boolean, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return resolve(`speedmatrix-${demo ? 'demo-' : ''}${safeName(model)}-${stamp}${SESSION_EXTENSION}`);
}

export { Refusal } from './out-folder';

/** Where the session goes, checked now; the default name waits for the model's name. */
export function checkOutputs(flags: RunFlags): void {
  if (flags.resume) {
    checkWritableFolder('--resume', resolve(flags.resume));
  } else if (flags.out) {
    const file = resolve(flags.out);
    checkWritableFolder('--out', file);
    if (existsSync(file))
      throw new Refusal(
        `--out: ${file} already exists; choose another --out, or continue it with --resume ${file}.`,
        EXIT.usage,
      );
  } else {
    checkWritableFolder('the session file (add --out FILE to choose)', join(process.cwd(), 'session'));
  }
  if (flags.report) checkWritableFolder('--report', resolve(flags.report));
}

/** The key from a file, the environment, or (warned against) the command line. */
export function apiKeyFrom(flags: RunFlags, warn: (t: string) => void): string | undefined {
  if (flags.apiKeyFile) {
    try {
      const key = readFileSync(flags.apiKeyFile, 'utf8').trim();
      if (!key) throw new Refusal(`--api-key-file: ${flags.apiKeyFile} is empty.`, EXIT.usage);
      return key;
    } catch (e) {
      if (e instanceof Refusal) throw e;
      throw new Refusal(`--api-key-file: cannot read ${flags.apiKeyFile}: ${(e as Error).message}`, EXIT.usage);
    }
  }
  if (flags.apiKey) {
    warn(
      'warning: a key given with --api-key shows in the process list and shell history, and npx writes it to npm’s debug log. Set SPEEDMATRIX_API_KEY or use --api-key-file instead.',
    );
    return flags.apiKey;
  }
  return process.env.SPEEDMATRIX_API_KEY || undefined;
}

export function usageProblem(cmd: string[], flags: RunFlags): string | null {
  return serverFlagsProblem(cmd, flags, {
    none: flags.resume
      ? null
      : 'say which server to benchmark: --url URL, --launch -- CMD..., or --demo (try `speedmatrix run --demo` first).',
    launchExample: 'speedmatrix run --launch -- vllm serve MODEL --port 8000',
  });
}

/**
 * What is wrong with the flags that choose the server (`run`, `load`): one of --url, --launch and
 * --demo (`none` when none is given, null if that is allowed), a command only after --launch, one key.
 */
export function serverFlagsProblem(
  cmd: string[],
  flags: Pick<RunFlags, 'url' | 'launch' | 'demo' | 'apiKey' | 'apiKeyFile'>,
  say: { none: string | null; launchExample: string },
): string | null {
  const modes = [flags.url, flags.launch, flags.demo].filter(Boolean).length;
  if (modes > 1) return 'choose one of --url, --launch and --demo.';
  if (modes === 0 && say.none) return say.none;
  if (flags.launch && cmd.length === 0) return `--launch needs the server command after --, e.g. ${say.launchExample}`;
  if (!flags.launch && cmd.length > 0)
    return `unexpected arguments: ${cmd.join(' ')} (a server command goes after --launch ... --).`;
  if (flags.apiKey && flags.apiKeyFile) return 'give the key one way: --api-key-file or --api-key.';
  const url = flags.url === undefined ? null : normalizeBaseUrl(flags.url);
  if (url && !url.ok) return `--url: ${url.error}`;
  return null;
}

function demoLaunch(port: number, apiKey: string | undefined, simSpeed: number): LaunchOptions {
  return {
    engineKind: 'simulator',
    model: 'microsoft/Fara1.5-4B',
    servedModelName: 'fara',
    maxModelLen: 262_144,
    gpuMemoryUtilization: 0.83,
    host: '127.0.0.1',
    port,
    apiKey,
    simProfile: DEMO_PROFILE,
    simSpeed,
    simArgs: ['--sim-load-seconds', '0.5'],
  };
}

/** Write the Markdown report where it was asked, or to the temp folder when that fails. */
/** This machine's hardware, detected when a session needs it; a note when no GPU answers. */
export const detectLocalHardware = (say: (t: string) => void) => async (): Promise<Hardware | undefined> => {
  const hw = await detectHardware({ timeoutMs: 8000 }).catch(() => null);
  if (hw?.noGpuMessage) say(`note: ${hw.noGpuMessage}`);
  return hw?.hardware;
};

export async function writeReport(file: string, session: Session): Promise<{ file: string; note: string | null }> {
  const text = renderMarkdownReport(session);
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
    return { file, note: null };
  } catch (e) {
    const fallback = join(tmpdir(), basename(file));
    await writeFile(fallback, text);
    return { file: fallback, note: `Could not write ${file} (${(e as Error).message}); wrote ${fallback} instead.` };
  }
}

function serverLine(side: ServerSide): string {
  const t = side.target;
  const mml = t.maxModelLen === null ? 'unknown' : fmtCount(t.maxModelLen);
  const kv =
    t.kvBudget.tokens === null ? 'unknown' : `${fmtCount(t.kvBudget.tokens)} tokens (${kvBudgetOrigin(t.kvBudget)})`;
  const start = startTimeText(t.launch.startPhases);
  return `Server: ${t.baseUrl}  model ${t.model}${t.simulated ? '  [SIMULATED]' : ''}  max_model_len ${mml}  KV budget ${kv}${start ? `\nServer start: ${start}` : ''}`;
}

export interface RunInputs {
  config: RunConfigInput;
  readyTimeoutMs?: number;
  apiKey?: string;
  given?: Hardware;
  launch: LaunchOptions | null;
  resumeSession: Session | null;
}

/** Everything the flags say, checked before anything is launched or measured. */
async function readInputs(cmd: string[], flags: RunFlags): Promise<RunInputs> {
  let inputs: RunInputs;
  try {
    const config = runConfigFrom(flags);
    const readyTimeoutMs = flags.readyTimeout
      ? positiveNumber('--ready-timeout', flags.readyTimeout) * 1000
      : undefined;
    const apiKey = apiKeyFrom(flags, (t) => process.stderr.write(`${t}\n`));
    checkOutputs(flags);
    let launch: LaunchOptions | null = null;
    if (flags.launch) {
      launch = launchOptionsFromCommand(cmd);
      if (apiKey && !launch.apiKey) launch.apiKey = apiKey;
    }
    inputs = { config, readyTimeoutMs, apiKey, launch, resumeSession: null };
  } catch (e) {
    throw e instanceof Refusal ? e : new Refusal((e as Error).message, EXIT.usage);
  }
  if (flags.hardware) {
    const hw = await readHardwareFile(resolve(flags.hardware));
    if (!hw.ok) throw new Refusal(`--hardware: ${hw.error}`, EXIT.usage);
    inputs.given = hw.data;
  }
  if (flags.resume) {
    const loaded = await loadForResume(resolve(flags.resume));
    if (!loaded.ok) throw new Refusal(loaded.error, EXIT.failed);
    if (loaded.session.load)
      throw new Refusal(
        `--resume: ${flags.resume} is a load session, and load sessions are not resumed (a rate cut short is measured again whole); run \`speedmatrix load\` again with a new --out.`,
        EXIT.usage,
      );
    inputs.resumeSession = loaded.session;
    if (!flags.url && !flags.launch && !flags.demo) {
      const again = relaunchOf(loaded.session, flags.resume, inputs.apiKey, await freePort());
      if (again) {
        inputs.launch = again.launch;
        inputs.config = { ...inputs.config, simSpeed: inputs.config.simSpeed ?? again.simSpeed };
      }
    }
  }
  return inputs;
}

/** The server to measure: launched through `supervisor` (demo, --launch) or attached (--url, or the resumed session's URL). */
export async function getServer(
  flags: RunFlags,
  inputs: RunInputs,
  supervisor: Supervisor | null,
  say: (t: string) => void,
): Promise<ServerSide> {
  const { config } = inputs;
  let side: ServerSide;
  if (supervisor) {
    const registry = new LaunchedRegistry();
    await offerToEndLeftovers(registry, Boolean(flags.yes), say);
    if (flags.demo) {
      inputs.config = { ...DEMO_CONFIG, ...config, simSpeed: config.simSpeed ?? DEMO_SPEED };
      inputs.launch = demoLaunch(await freePort(), inputs.apiKey, inputs.config.simSpeed as number);
      say(
        `Demo: a SIMULATED vLLM server (profile ${DEMO_PROFILE}, clock ${inputs.config.simSpeed}x faster; figures are in simulated seconds).`,
      );
    }
    say('Launching the server...');
    const started = await launchServer(
      inputs.launch as LaunchOptions,
      { readyTimeoutMs: inputs.readyTimeoutMs, userKvTokens: config.kvBudgetTokens, registry, onRestart: say },
      supervisor,
    );
    if (!started.ok) {
      const f = started.error;
      throw new Refusal(
        [
          `the server did not start: ${f.message}`,
          ...f.rootCauseLines.map((l) => `  root cause: ${l}`),
          f.advice ? `  advice: ${f.advice}` : '',
        ]
          .filter(Boolean)
          .join('\n'),
        EXIT.failed,
      );
    }
    side = started.data;
  } else {
    const url = flags.url ?? inputs.resumeSession?.server.url;
    if (!url) throw new Refusal('the session does not say which URL it measured; give --url.', EXIT.failed);
    const attached = await attachServer({
      url,
      apiKey: inputs.apiKey,
      model: flags.model ?? inputs.resumeSession?.server.servedModel ?? undefined,
      userKvTokens: config.kvBudgetTokens,
    });
    if (!attached.ok) throw new Refusal(attached.error, EXIT.failed);
    side = attached.data;
  }
  if (flags.model && side.target.model !== flags.model)
    throw new Refusal(
      `the model "${flags.model}" is not what the server serves ("${side.target.model}").`,
      EXIT.failed,
    );
  return side;
}

/** The Markdown report beside a session file: run.speedmatrix.json -> run.md. */
const reportBeside = (file: string): string => file.replace(/\.speedmatrix\.json$|\.json$/, '') + '.md';

/** After the run: the report if asked, the summary, where everything is; returns the exit code. */
async function finish(
  run: OrchestratedRun,
  flags: RunFlags,
  printer: ProgressPrinter,
  json: boolean,
  say: (t: string) => void,
): Promise<number> {
  const session = await run.handle.done;
  const outcome = run.handle.outcome();
  const file = run.handle.sessionFile();
  let reportFile: string | null = null;
  const beside = reportBeside(file);
  // A resumed run rewrites the report it started with: the demo's, or one written beside the session.
  const wantReport = flags.report ?? (flags.demo || (flags.resume && existsSync(beside)) ? beside : undefined);
  if (wantReport) {
    const r = await writeReport(resolve(wantReport), session);
    reportFile = r.file;
    if (r.note) say(`warning: ${r.note}`);
  }
  if (!json) {
    printer.line('');
    printer.line(summarizeSession(session));
  }
  say(
    `${outcome === 'cancelled' ? 'Cancelled; saved what was measured' : 'Done'}${session.simulated ? ' (SIMULATED)' : ''}.`,
  );
  say(`Session file: ${file}`);
  if (reportFile) say(`Report: ${reportFile}`);
  if (outcome === 'cancelled') say(`Continue later with: ${shellLine(resumeCommand(file, flags))}`);
  return outcome === 'cancelled' ? EXIT.cancelled : outcome === 'failed' ? EXIT.failed : EXIT.ok;
}

/** What resumes this run as typed: the session restarts a server it launched; a URL and a key file are given again. */
function resumeCommand(file: string, flags: RunFlags): string[] {
  return [
    'speedmatrix',
    'run',
    '--resume',
    file,
    ...(flags.url ? ['--url', flags.url] : []),
    ...(flags.apiKeyFile ? ['--api-key-file', flags.apiKeyFile] : []),
  ];
}

/** The whole command; returns the exit code. */
export async function runBenchmarkCommand(cmd: string[], flags: RunFlags): Promise<number> {
  const err = errorWriter('run');
  const problem = usageProblem(cmd, flags);
  if (problem) {
    err(problem);
    return EXIT.usage;
  }
  const { mode, printer, say } = progressConsole(Boolean(flags.jsonProgress));
  let inputs: RunInputs;
  try {
    inputs = await readInputs(cmd, flags);
  } catch (e) {
    return exitCodeFor(e, err, EXIT.usage);
  }

  if (inputs.resumeSession && nothingLeftToResume(inputs.resumeSession)) {
    say(`Nothing left to measure: every cell of ${resolve(flags.resume!)} is done, so no server was started.`);
    say(summarizeSession(inputs.resumeSession));
    return EXIT.ok;
  }
  // Created before the launch, so a Ctrl-C while the server starts can stop it.
  const supervisor = flags.demo || inputs.launch ? new Supervisor() : null;
  let handle: { stop(): Promise<void> } | null = null;
  const signals = onStopSignals(
    () => {
      printer.stopping();
      say('Stopping: cancelling in-flight requests and saving (Ctrl-C again to quit at once)...');
      void (handle ?? supervisor)?.stop();
    },
    () => endLaunchedNow(supervisor, say),
  );
  try {
    const side = await getServer(flags, inputs, supervisor, say);
    const sessionFile = flags.resume
      ? resolve(flags.resume)
      : resolve(flags.out ?? defaultSessionFile(side.target.model, Boolean(flags.demo)));
    if (!flags.resume && existsSync(sessionFile))
      throw new Refusal(
        `${sessionFile} already exists; choose another --out, or continue it with --resume ${sessionFile}.`,
        EXIT.failed,
      );
    say(serverLine(side));
    const run = await startOrchestratedRun({
      server: side,
      config: inputs.config,
      sessionFile,
      resume: Boolean(flags.resume),
      hardware: {
        given: inputs.given,
        detectLocal: detectLocalHardware(say),
      },
      onEvent: (e) => printer.handle(e),
    });
    handle = run.handle;
    if (signals.interrupted) void handle.stop();
    for (const n of run.notes) say(`note: ${n}`);
    say(`Session: ${sessionFile}`);
    return await finish(run, flags, printer, mode === 'json', say);
  } catch (e) {
    if (e instanceof RunRefused) for (const n of e.notes) say(`note: ${n}`);
    const code = exitCodeFor(e, err, EXIT.failed);
    return signals.interrupted ? EXIT.cancelled : code;
  } finally {
    // Still listening while the server stops: a second Ctrl-C then ends it at once.
    await stopSupervised(supervisor, say);
    signals.off();
  }
}
