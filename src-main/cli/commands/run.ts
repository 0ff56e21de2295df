/**
 * `speedmatrix run`: benchmark a server into a speed test matrix.
 *   run --url URL [...]               a running server (attach)
 *   run --launch [...] -- CMD...      start one through the supervisor, stop it at the end
 *   run --demo                        the simulator (profile a), a compact matrix in about 2 minutes
 *   run --resume FILE                 continue a session where it stopped
 * Exit codes: 0 completed (even with failed cells), 1 could not run, 130 cancelled.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { loadForResume, startRun } from '../../bench/start-run';
import { nothingToRun, planRun, tooLongReason } from '../../bench/plan';
import { ProgressPrinter } from '../../bench/progress';
import type { RunConfigInput, TokenTargeting } from '../../bench/types';
import { detectHardware, GpuTelemetry } from '../../hardware';
import { fmtCount, parseTokenCount } from '../../../src-shared/report/format';
import { renderMarkdownReport } from '../../report/markdown';
import { projectRoot } from '../../runtime/node-entry';
import { launchOptionsFromCommand } from '../../server/command-line';
import type { LaunchOptions } from '../../server/launch';
import { probeServer } from '../../server/probe';
import { Supervisor } from '../../server/supervisor';
import type { ServerTarget } from '../../server/target';
import { SESSION_EXTENSION, type Hardware, type Session } from '../../../src-shared/session/schema';
import { summarizeSession } from '../../session/summary';

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

interface RunFlags {
  url?: string;
  apiKey?: string;
  model?: string;
  contexts?: string;
  concurrency?: string;
  prefillContexts?: string;
  duration?: string;
  maxOutput?: string;
  tokenTargeting?: string;
  kvBudget?: string;
  out?: string;
  report?: string;
  resume?: string;
  jsonProgress?: boolean;
  launch?: boolean;
  demo?: boolean;
  simSpeed?: string;
  readyTimeout?: string;
  scoutDeadlineFloor?: string;
  scoutDeadlineCap?: string;
}

class UsageError extends Error {}

function parseCounts(flag: string, text: string, min: number): number[] {
  const out: number[] = [];
  for (const part of text.split(',')) {
    if (!part.trim()) continue;
    const v = parseTokenCount(part);
    if (v === null || v < min) throw new UsageError(`${flag}: "${part.trim()}" is not a ${min > 0 ? 'positive ' : ''}whole number (e.g. 8k, 32768).`);
    out.push(v);
  }
  if (out.length === 0) throw new UsageError(`${flag}: give at least one value, comma-separated.`);
  return out;
}

function positiveNumber(flag: string, text: string): number {
  const v = Number(text);
  if (!Number.isFinite(v) || v <= 0) throw new UsageError(`${flag} must be a positive number, got "${text}".`);
  return v;
}

/** The run configuration from the flags (only what was given; the plan fills METHOD.md's defaults). */
export function configFromFlags(f: RunFlags): RunConfigInput {
  const c: RunConfigInput = {};
  if (f.contexts) c.contexts = parseCounts('--contexts', f.contexts, 0);
  if (f.concurrency) c.concurrency = parseCounts('--concurrency', f.concurrency, 1);
  if (f.prefillContexts !== undefined) c.prefillContexts = f.prefillContexts.trim() === 'none' ? [] : parseCounts('--prefill-contexts', f.prefillContexts, 1);
  if (f.duration) c.secondsPerMeasurement = positiveNumber('--duration', f.duration);
  if (f.maxOutput) {
    const n = positiveNumber('--max-output', f.maxOutput);
    if (!Number.isInteger(n)) throw new UsageError(`--max-output must be a whole number of tokens, got "${f.maxOutput}".`);
    c.maxOutputTokens = n;
  }
  if (f.tokenTargeting) {
    if (f.tokenTargeting !== 'exact' && f.tokenTargeting !== 'estimate') throw new UsageError(`--token-targeting must be exact or estimate, got "${f.tokenTargeting}".`);
    c.tokenTargeting = f.tokenTargeting as TokenTargeting;
  }
  if (f.kvBudget) {
    const v = parseTokenCount(f.kvBudget);
    if (v === null || v <= 0) throw new UsageError(`--kv-budget must be a number of tokens, got "${f.kvBudget}".`);
    c.kvBudgetTokens = v;
  }
  if (f.simSpeed) c.simSpeed = positiveNumber('--sim-speed', f.simSpeed);
  if (f.scoutDeadlineFloor || f.scoutDeadlineCap) {
    c.scoutDeadline = {};
    if (f.scoutDeadlineFloor) c.scoutDeadline.floorSeconds = positiveNumber('--scout-deadline-floor', f.scoutDeadlineFloor);
    if (f.scoutDeadlineCap) c.scoutDeadline.capSeconds = positiveNumber('--scout-deadline-cap', f.scoutDeadlineCap);
  }
  return c;
}

/** A TCP port the OS says is free now (the supervisor checks again before launching). */
function freeTcpPort(): Promise<number> {
  return new Promise((ok, no) => {
    const srv = createServer();
    srv.once('error', no);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      const port = typeof a === 'object' && a ? a.port : 0;
      srv.close(() => ok(port));
    });
  });
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'model';

/** Default session file: ./speedmatrix-<model>-<date>.speedmatrix.json */
export function defaultSessionFile(model: string, simulated: boolean, now = new Date()): string {
  const stamp = now.toISOString().replace(/[:]/g, '').replace(/\..*$/, '').replace('T', '-');
  return resolve(`speedmatrix-${simulated ? 'demo-' : ''}${safeName(model)}-${stamp}${SESSION_EXTENSION}`);
}

function simulatedHardware(profile: string): Hardware {
  let name = 'Simulated GPU';
  let vramBytes: number | null = null;
  try {
    const file = join(projectRoot(), 'src-main/sim/profiles', `${profile}.json`);
    const p = JSON.parse(readFileSync(file, 'utf8')) as { gpu?: { name?: string; memoryGiB?: number } };
    if (p.gpu?.name) name = p.gpu.name;
    if (p.gpu?.memoryGiB) vramBytes = Math.round(p.gpu.memoryGiB * 1024 ** 3);
  } catch {
    // the profile file is only used for labels
  }
  return {
    gpuType: 'Simulated GPU',
    gpus: [{ index: 0, vendor: 'simulated', name: `${name} (simulated)`, uuid: null, vramBytes, driver: null, cuda: null, computeCapability: null, powerLimitWatts: null, busId: null }],
    cpu: null,
    ramBytes: null,
    os: { platform: process.platform, distro: null, release: null, kernel: null, arch: process.arch },
    notes: ['Simulated server: the figures come from SpeedMatrix’s performance model, not from this machine.'],
  };
}

/** Write the Markdown report next to where it was asked, or to the temp folder when that fails. */
async function writeReport(file: string, session: Session): Promise<{ file: string; note: string | null }> {
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

export function registerRun(program: Command): void {
  program
    .command('run')
    .description('Benchmark a server: prefill and sustained decode across contexts and concurrency (try `run --demo` first).')
    .usage('--url URL [options] | --launch [options] -- CMD... | --demo | --resume FILE')
    .argument('[cmd...]', 'with --launch: the server command after --, e.g. -- vllm serve Qwen/Qwen3-0.6B --port 8000')
    .option('--url <url>', 'a running OpenAI-compatible server, e.g. http://127.0.0.1:8000')
    .option('--api-key <key>', 'Bearer key for /v1 (or env SPEEDMATRIX_API_KEY); never written to files')
    .option('--model <name>', 'served model to benchmark (default: the first one served)')
    .option('--contexts <list>', 'decode contexts, e.g. 0,8k,16k,32k (default 0,8K,16K,32K,64K,128K and the largest that fits)')
    .option('--concurrency <list>', 'simultaneous requests, e.g. 1,2,4 (default 1..128 in powers of two)')
    .option('--prefill-contexts <list>', 'contexts measured for prefill (default the decode contexts plus 256K where it fits; "none" for none)')
    .option('--duration <seconds>', 'measurement window per cell (default 30)')
    .option('--max-output <tokens>', 'max_tokens of every request (default 4096)')
    .option('--token-targeting <mode>', 'exact (POST /tokenize) or estimate (default exact)')
    .option('--kv-budget <tokens>', 'KV cache budget in tokens, when the server does not state one')
    .option('--out <file>', 'session file (default ./speedmatrix-<model>-<time>.speedmatrix.json)')
    .option('--report <file.md>', 'also write a Markdown report')
    .option('--resume <file>', 'continue this session: the same plan, only the cells not done')
    .option('--json-progress', 'print one JSON event per line instead of a progress bar')
    .option('--launch', 'start the server command given after -- through the supervisor, stop it at the end')
    .option('--demo', 'launch the simulator (profile rtx-pro-6000-fara-4b-bf16) and run a compact matrix, about 2 minutes')
    .option('--sim-speed <x>', "a simulator's clock speed-up (--demo: default 10; a simulator attached by --url: give its --sim-speed); times are then in simulated seconds")
    .option('--ready-timeout <seconds>', 'with --launch/--demo: startup deadline (default 1200)')
    .option('--scout-deadline-floor <seconds>', 'a prefill scout waits at least this long (default 120); it waits twice the time expected from smaller prefills')
    .option('--scout-deadline-cap <seconds>', 'and at most this long (default 3600; a 256K prefill on a slow card takes minutes)')
    .action(async (cmd: string[], flags: RunFlags) => {
      process.exitCode = await runCommand(cmd, flags);
    });
}

/** The whole command; returns the exit code. */
export async function runCommand(cmd: string[], flags: RunFlags): Promise<number> {
  const err = (m: string) => process.stderr.write(`speedmatrix run: ${m}\n`);
  const modes = [flags.url ? 1 : 0, flags.launch ? 1 : 0, flags.demo ? 1 : 0].reduce((a, b) => a + b, 0);
  if (modes > 1) {
    err('choose one of --url, --launch and --demo.');
    return 2;
  }
  if (modes === 0 && !flags.resume) {
    err('say which server to benchmark: --url URL, --launch -- CMD..., or --demo (try `speedmatrix run --demo` first).');
    return 2;
  }
  if (flags.launch && cmd.length === 0) {
    err('--launch needs the server command after --, e.g. speedmatrix run --launch -- vllm serve MODEL --port 8000');
    return 2;
  }
  if (!flags.launch && cmd.length > 0) {
    err(`unexpected arguments: ${cmd.join(' ')} (a server command goes after --launch ... --).`);
    return 2;
  }
  let config: RunConfigInput;
  let readyTimeoutMs: number | undefined;
  try {
    config = configFromFlags(flags);
    readyTimeoutMs = flags.readyTimeout ? positiveNumber('--ready-timeout', flags.readyTimeout) * 1000 : undefined;
  } catch (e) {
    err((e as Error).message);
    return 2;
  }
  const apiKey = flags.apiKey ?? process.env.SPEEDMATRIX_API_KEY;
  const mode = flags.jsonProgress ? 'json' : process.stdout.isTTY ? 'tty' : 'plain';
  const printer = new ProgressPrinter(mode, { write: (t) => process.stdout.write(t) });
  const say = (t: string) => (mode === 'json' ? process.stderr.write(`${t}\n`) : printer.line(t));

  // Resume: the session says where the server was.
  let resumeSession: Session | null = null;
  if (flags.resume) {
    const loaded = await loadForResume(resolve(flags.resume));
    if (!loaded.ok) {
      err(loaded.error);
      return 1;
    }
    resumeSession = loaded.session;
  }

  // The server: launched (demo, --launch) or attached (--url, or the resumed session's URL).
  let supervisor: Supervisor | null = null;
  let launchOpts: LaunchOptions | null = null;
  let target: ServerTarget;
  let hardware: Hardware | undefined;
  let interrupted = false;
  let handle: ReturnType<typeof startRun> | null = null;
  const onSignal = () => {
    if (interrupted) {
      say('Stopping now.');
      process.exit(130);
    }
    interrupted = true;
    say('Stopping: cancelling in-flight requests and saving (Ctrl-C again to quit at once)...');
    void handle?.stop();
    if (!handle) void supervisor?.stop();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    if (flags.demo || flags.launch) {
      if (flags.demo) {
        launchOpts = {
          engineKind: 'simulator',
          model: 'microsoft/Fara1.5-4B',
          servedModelName: 'fara',
          maxModelLen: 262_144,
          gpuMemoryUtilization: 0.83,
          host: '127.0.0.1',
          port: await freeTcpPort(),
          apiKey,
          simProfile: DEMO_PROFILE,
          simSpeed: config.simSpeed ?? DEMO_SPEED,
          simArgs: ['--sim-load-seconds', '0.5'],
        };
        config = { ...DEMO_CONFIG, ...config, simSpeed: config.simSpeed ?? DEMO_SPEED };
        hardware = simulatedHardware(DEMO_PROFILE);
        say(`Demo: a SIMULATED vLLM server (profile ${DEMO_PROFILE}, clock ${config.simSpeed}x faster; figures are in simulated seconds).`);
      } else {
        try {
          launchOpts = launchOptionsFromCommand(cmd);
        } catch (e) {
          err((e as Error).message);
          return 2;
        }
        if (apiKey && !launchOpts.apiKey) launchOpts.apiKey = apiKey;
      }
      supervisor = new Supervisor();
      say(`Launching the server...`);
      const started = await supervisor.start(launchOpts, { readyTimeoutMs, userKvTokens: config.kvBudgetTokens });
      if (!started.ok) {
        const f = started.error;
        err([`the server did not start: ${f.message}`, ...f.rootCauseLines.map((l) => `  root cause: ${l}`), f.advice ? `  advice: ${f.advice}` : ''].filter(Boolean).join('\n'));
        return interrupted ? 130 : 1;
      }
      target = started.data;
      if (flags.demo) target = { ...target, simulated: true };
    } else {
      const url = flags.url ?? resumeSession?.server.url;
      if (!url) {
        err('the session does not say which URL it measured; give --url.');
        return 1;
      }
      const probed = await probeServer({
        baseUrl: url,
        apiKey,
        model: flags.model ?? resumeSession?.server.servedModel ?? undefined,
        userKvTokens: config.kvBudgetTokens,
      });
      if (!probed.ok) {
        err(probed.error);
        return 1;
      }
      target = probed.data;
    }
    if (flags.model && target.model !== flags.model) {
      err(`the model "${flags.model}" is not what the server serves ("${target.model}").`);
      return 1;
    }
    if (!hardware && !resumeSession) {
      try {
        const hw = await detectHardware({ timeoutMs: 8000 });
        hardware = hw.hardware;
        if (hw.noGpuMessage && !target.simulated) say(`note: ${hw.noGpuMessage}`);
      } catch {
        hardware = undefined;
      }
    }
    if (target.simulated && !hardware) hardware = simulatedHardware('simulated');
    const mml = target.maxModelLen;
    if (!flags.resume) {
      const plan = planRun(config, target);
      for (const c of plan.config.contexts) {
        const tooLong = tooLongReason(c, plan.config.maxOutputTokens, mml);
        if (tooLong) say(`note: ${tooLong}: those cells are marked Too long and not run.`);
      }
      const nothing = nothingToRun(plan);
      if (nothing) {
        err(nothing);
        return 1;
      }
    }

    const sessionFile = flags.resume ? resolve(flags.resume) : resolve(flags.out ?? defaultSessionFile(target.model, target.simulated));
    if (!flags.resume && existsSync(sessionFile)) {
      err(`${sessionFile} already exists; choose another --out, or continue it with --resume ${sessionFile}.`);
      return 1;
    }
    say(`Server: ${target.baseUrl}  model ${target.model}${target.simulated ? '  [SIMULATED]' : ''}  max_model_len ${mml === null ? 'unknown' : fmtCount(mml)}  KV budget ${target.kvBudget.tokens === null ? 'unknown' : `${fmtCount(target.kvBudget.tokens)} tokens (${target.kvBudget.source})`}`);
    say(`Session: ${sessionFile}`);

    // GPU telemetry for real servers on this machine (it says once when there is none).
    const telemetry = target.simulated || flags.resume ? undefined : new GpuTelemetry();
    telemetry?.start();
    handle = startRun({
      target,
      config,
      sessionFile,
      hardware,
      resume: Boolean(flags.resume),
      telemetry,
      onEvent: (e) => printer.handle(e),
      serverLogLines: supervisor ? () => supervisor?.logTail(2000) ?? [] : undefined,
      onServerCrash: supervisor && launchOpts ? restartWith(supervisor, launchOpts, readyTimeoutMs, say) : undefined,
    });
    if (interrupted) void handle.stop();
    const session = await handle.done.finally(() => telemetry?.stop());
    const outcome = handle.outcome();
    const file = handle.sessionFile();

    let reportFile: string | null = null;
    const wantReport = flags.report ?? (flags.demo ? file.replace(/\.speedmatrix\.json$|\.json$/, '') + '.md' : undefined);
    if (wantReport) {
      const r = await writeReport(resolve(wantReport), session);
      reportFile = r.file;
      if (r.note) say(`warning: ${r.note}`);
    }
    if (mode !== 'json') {
      printer.line('');
      printer.line(summarizeSession(session));
    }
    say(`${outcome === 'cancelled' ? 'Cancelled; saved what was measured' : 'Done'}${session.simulated ? ' (SIMULATED)' : ''}.`);
    say(`Session file: ${file}`);
    if (reportFile) say(`Report: ${reportFile}`);
    if (outcome === 'cancelled') say(`Continue later with: speedmatrix run --resume ${file}${flags.url ? ` --url ${flags.url}` : ''}`);
    return outcome === 'cancelled' ? 130 : outcome === 'failed' ? 1 : 0;
  } catch (e) {
    err((e as Error).message);
    return interrupted ? 130 : 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    if (supervisor) {
      const rep = await supervisor.stop();
      if (rep.leftBehind.length) say(`warning: ${rep.summary}`);
    }
  }
}

/** The supervisor hook: restart the crashed server with the same launch, return the new target. */
function restartWith(sup: Supervisor, opts: LaunchOptions, readyTimeoutMs: number | undefined, say: (t: string) => void) {
  return async (message: string): Promise<ServerTarget | null> => {
    say(`The server died (${message}); restarting it...`);
    await sup.stop();
    const started = await sup.start(opts, { readyTimeoutMs });
    if (!started.ok) {
      say(`Could not restart the server: ${started.error.message}`);
      return null;
    }
    say('The server is back; continuing.');
    return started.data;
  };
}
