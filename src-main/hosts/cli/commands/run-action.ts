/**
 * The body of `speedmatrix run`: checks what can be checked before anything is measured
 * (flags, the output folder, servers an earlier killed run left behind), gets the server
 * (attach or launch), hands it to the run orchestrator and prints what happens.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { ProgressPrinter } from '../../../engine/bench/progress';
import { loadForResume, nothingLeftToResume } from '../../../engine/bench/start-run';
import {
  RunRefused,
  startOrchestratedRun,
  type OrchestratedRun,
  type ServerSide,
} from '../../../workflows/orchestrator/orchestrator';
import { readHardwareFile } from '../../../workflows/orchestrator/server-hardware';
import { fmtCount } from '#shared/report/format';
import { kvBudgetOrigin } from '#shared/report/report-blocks';
import { startTimeText } from '#shared/report/start-time';
import { launchOptionsFromCommand } from '../../../engine/server/command-line';
import type { LaunchOptions } from '../../../engine/server/launch';
import { freePort } from '../../../engine/server/port';
import { summarizeSession } from '../../../platform/session/summary';
import type { RunFlags } from './flag-types';
import { positiveNumber, runConfigFrom } from '../../../workflows/inputs/run-input';
import { EXIT } from './exit';
import { errorWriter, exitCodeFor, progressConsole } from './command-io';
import { Refusal } from './out-folder';
import { relaunchOf } from './resume-server';
import {
  apiKeyFrom,
  checkOutputs,
  defaultSessionFile,
  detectLocalHardware,
  serverFlagsProblem,
  withServer,
  writeReport,
  type RunInputs,
} from './server-command';
import { shellLine } from '#shared/shell-quote';

export function usageProblem(cmd: string[], flags: RunFlags): string | null {
  return serverFlagsProblem(cmd, flags, {
    none: flags.resume
      ? null
      : 'say which server to benchmark: --url URL, --launch -- CMD..., or --demo (try `speedmatrix run --demo` first).',
    launchExample: 'speedmatrix run --launch -- vllm serve MODEL --port 8000',
  });
}

function serverLine(side: ServerSide): string {
  const t = side.target;
  const mml = t.maxModelLen === null ? 'unknown' : fmtCount(t.maxModelLen);
  const kv =
    t.kvBudget.tokens === null ? 'unknown' : `${fmtCount(t.kvBudget.tokens)} tokens (${kvBudgetOrigin(t.kvBudget)})`;
  const start = startTimeText(t.launch.startPhases);
  return `Server: ${t.baseUrl}  model ${t.model}${t.simulated ? '  [SIMULATED]' : ''}  max_model_len ${mml}  KV budget ${kv}${start ? `\nServer start: ${start}` : ''}`;
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
  const stopping = () => {
    printer.stopping();
    say('Stopping: cancelling in-flight requests and saving (Ctrl-C again to quit at once)...');
  };
  return withServer({ flags, inputs, say, err }, stopping, async (side, measured) => {
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
    }).catch((e: unknown) => {
      if (e instanceof RunRefused) for (const n of e.notes) say(`note: ${n}`);
      throw e;
    });
    measured.started(() => void run.handle.stop());
    for (const n of run.notes) say(`note: ${n}`);
    say(`Session: ${sessionFile}`);
    return await finish(run, flags, printer, mode === 'json', say);
  });
}
