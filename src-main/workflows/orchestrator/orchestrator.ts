/**
 * One run orchestrator for the app and the CLI: given a ready server (with its restart
 * policy), it decides once where the server runs, and from that whose hardware the session
 * records and whether this machine's GPU telemetry is sampled; then it plans and starts the
 * run. Callers only gather input (IPC forms, CLI flags) and show what happens.
 */
import { nothingToRun, planRun, tooLongReason } from '../../engine/bench/plan';
import { streamsCeilingReason } from '../../engine/bench';
import { startRun, type RunHandle } from '../../engine/bench/start-run';
import type { BenchEvent, RunConfigInput, RunPlan } from '../../engine/bench/types';
import type { WorkerLauncher } from '../../engine/bench/worker-transport';
import { GpuTelemetry } from '../../platform/hardware/telemetry';
import type { Hardware } from '#shared/session/schema';
import type { ServerTarget } from '../../engine/server/target';
import { serverPlacement, type ServerPlacement } from './placement';
import { hardwareOfServer, REMOTE_NOT_RECORDED, type ServerHardwareOptions } from './server-hardware';

/** A ready server as a run sees it. */
export interface ServerSide {
  target: ServerTarget;
  /**
   * The restart policy: a supervised server is restarted after a crash and resolves with its
   * new target (the run goes on); absent for an attached server, which cannot be restarted.
   */
  restart?: (message: string) => Promise<ServerTarget | null>;
  /** The server's log (supervised servers), kept in the session. */
  logLines?: () => string[];
}

interface OrchestratedRunOptions {
  server: ServerSide;
  config: RunConfigInput;
  sessionFile: string;
  /** Continue the session in `sessionFile`: its plan, its hardware, only the cells not done. */
  resume?: boolean;
  hardware: ServerHardwareOptions;
  /** This machine's running GPU telemetry loop, if one runs (the app's); else one runs for the run. */
  localTelemetry?: () => GpuTelemetry | null;
  /** The nvidia-smi a telemetry loop of our own runs. */
  nvidiaSmi?: string;
  launcher?: WorkerLauncher;
  onEvent: (e: BenchEvent) => void;
}

export interface OrchestratedRun {
  handle: RunHandle;
  placement: ServerPlacement;
  /** What the session records as the server's hardware (undefined on resume: the session has it). */
  hardware: Hardware | undefined;
  /** What to tell the person before the first cell. */
  notes: string[];
}

const PLACEMENT_NOTES: Record<ServerPlacement, string | null> = {
  simulated: null,
  'this-machine': null,
  remote: "The server is not on this machine: this machine's GPU is not sampled, and no energy per token is computed.",
};

/** One note per context the plan's Too long rule refuses, for the run's max output. */
function tooLongNotes(plan: RunPlan): string[] {
  return plan.config.contexts
    .map((c) => tooLongReason(c, plan.config.maxOutputTokens, plan.maxModelLen))
    .filter((r): r is string => r !== null)
    .map((r) => `${r}: those cells are marked Too long and not run.`);
}

/** A run that cannot start as asked; the message is a sentence for the person, the notes say why. */
export class RunRefused extends Error {
  constructor(
    message: string,
    readonly notes: string[],
  ) {
    super(message);
  }
}

export async function startOrchestratedRun(opts: OrchestratedRunOptions): Promise<OrchestratedRun> {
  const { target } = opts.server;
  const placement = await serverPlacement(target);
  const plan = opts.resume ? null : planRun(opts.config, target);
  const nothing = plan && (streamsCeilingReason(plan.config.concurrency) ?? nothingToRun(plan));
  if (nothing) throw new RunRefused(nothing, tooLongNotes(plan));
  const hardware = opts.resume ? undefined : await hardwareOfServer(placement, target, opts.hardware);
  // This machine's GPU says something only about a server running on it (not a simulated one).
  let telemetry: GpuTelemetry | undefined;
  let ownTelemetry = false;
  if (placement === 'this-machine') {
    telemetry = opts.localTelemetry?.() ?? undefined;
    if (!telemetry) {
      telemetry = new GpuTelemetry({ nvidiaSmi: opts.nvidiaSmi });
      telemetry.start();
      ownTelemetry = true;
    }
  }
  const handle = startRun({
    target,
    config: opts.config,
    sessionFile: opts.sessionFile,
    resume: opts.resume,
    hardware,
    telemetry,
    launcher: opts.launcher,
    onEvent: opts.onEvent,
    onServerCrash: opts.server.restart,
    serverLogLines: opts.server.logLines,
  });
  if (ownTelemetry) void handle.done.catch(() => undefined).finally(() => telemetry?.stop());
  const notes = [
    PLACEMENT_NOTES[placement],
    hardware?.notes.includes(REMOTE_NOT_RECORDED) ? REMOTE_NOT_RECORDED : null,
    ...(plan ? tooLongNotes(plan) : []),
  ];
  return { handle, placement, hardware, notes: notes.filter((n): n is string => n !== null) };
}
