/**
 * What the commands that measure a server share (`run`, `load`, the remote `run` and `sweep`):
 * the demo's server, the API key, the output checks, the flags that choose the server, the
 * server itself (launched through the supervisor or attached), this machine's hardware and the
 * Markdown report beside a session, and the lifecycle around a measurement (withServer).
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { RunConfigInput } from '../../../engine/bench/types';
import { detectHardware } from '../../../platform/hardware/detect';
import type { ServerSide } from '../../../workflows/orchestrator/orchestrator';
import { attachServer, launchServer } from '../../../workflows/orchestrator/server-side';
import { renderMarkdownReport } from '../../../workflows/report/markdown';
import { normalizeBaseUrl } from '../../../engine/server/probe';
import { LaunchedRegistry } from '../../../engine/server/launched-registry';
import type { LaunchOptions } from '../../../engine/server/launch';
import { freePort } from '../../../engine/server/port';
import { Supervisor } from '../../../engine/server/supervisor';
import { SESSION_EXTENSION, type Hardware, type Session } from '#shared/session/schema';
import type { RunFlags } from './flag-types';
import { EXIT } from './exit';
import { endLaunchedNow, exitCodeFor, onStopSignals, stopSupervised } from './command-io';
import { offerToEndLeftovers } from './leftovers';
import { Refusal, checkWritableFolder } from './out-folder';

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

/** This machine's hardware, detected when a session needs it; a note when no GPU answers. */
export const detectLocalHardware = (say: (t: string) => void) => async (): Promise<Hardware | undefined> => {
  const hw = await detectHardware({ timeoutMs: 8000 }).catch(() => null);
  if (hw?.noGpuMessage) say(`note: ${hw.noGpuMessage}`);
  return hw?.hardware;
};

/** Write the Markdown report where it was asked, or to the temp folder when that fails. */
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

export interface RunInputs {
  config: RunConfigInput;
  readyTimeoutMs?: number;
  apiKey?: string;
  given?: Hardware;
  launch: LaunchOptions | null;
  resumeSession: Session | null;
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

export interface MeasuredWork {
  /** The work has started: the first Ctrl-C now calls `stop` (at once when one already came). */
  started(stop: () => void): void;
}

/**
 * A measuring command's life around its server: the supervisor created before the launch (so a
 * Ctrl-C while the server starts stops it), the first Ctrl-C saying `stopping` and stopping the
 * work (or the launch), a second ending the launched server at once, an error's exit code
 * (cancelled after a Ctrl-C), and the launched server stopped at the end, still listening for
 * that second Ctrl-C while it stops. `work` measures and returns the exit code.
 */
export async function withServer(
  cmd: { flags: RunFlags; inputs: RunInputs; say: (t: string) => void; err: (t: string) => void },
  stopping: () => void,
  work: (side: ServerSide, measured: MeasuredWork) => Promise<number>,
): Promise<number> {
  const { flags, inputs, say } = cmd;
  const supervisor = flags.demo || inputs.launch ? new Supervisor() : null;
  let stopWork: (() => void) | null = null;
  const signals = onStopSignals(
    () => {
      stopping();
      if (stopWork) stopWork();
      else void supervisor?.stop();
    },
    () => endLaunchedNow(supervisor, say),
  );
  try {
    const side = await getServer(flags, inputs, supervisor, say);
    return await work(side, {
      started(stop) {
        stopWork = stop;
        if (signals.interrupted) stop();
      },
    });
  } catch (e) {
    const code = exitCodeFor(e, cmd.err, EXIT.failed);
    return signals.interrupted ? EXIT.cancelled : code;
  } finally {
    await stopSupervised(supervisor, say);
    signals.off();
  }
}
