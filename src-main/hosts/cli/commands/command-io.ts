/**
 * What the long-running commands (run, load, sweep and their --ssh forms) share: where their
 * lines go, what Ctrl-C does, which exit code an error gives, and stopping the server they started.
 */
import { ProgressPrinter, type ProgressMode } from '../../../engine/bench/progress';
import type { Supervisor } from '../../../engine/server/supervisor';
import { EXIT } from './exit';
import { Refusal } from './out-folder';

/** Writes "speedmatrix COMMAND: message" to stderr. */
export const errorWriter =
  (command: string) =>
  (message: string): void => {
    process.stderr.write(`speedmatrix ${command}: ${message}\n`);
  };

export interface ProgressConsole {
  mode: ProgressMode;
  printer: ProgressPrinter;
  /** A line for the person: on stderr with --json-progress, so stdout holds one event a line. */
  say: (text: string) => void;
}

/** The progress printer on stdout: JSON events, a live bar on a terminal, else plain lines. */
export function progressConsole(json: boolean): ProgressConsole {
  const mode: ProgressMode = json ? 'json' : process.stdout.isTTY ? 'tty' : 'plain';
  const printer = new ProgressPrinter(mode, {
    write: (t) => process.stdout.write(t),
    columns: () => process.stdout.columns,
  });
  const say = (t: string) => (json ? process.stderr.write(`${t}\n`) : printer.line(t));
  return { mode, printer, say };
}

/** Says the error and gives its exit code: a Refusal's own, else `otherwise`. */
export function exitCodeFor(e: unknown, err: (message: string) => void, otherwise: number): number {
  err((e as Error).message);
  return e instanceof Refusal ? e.code : otherwise;
}

export interface StopSignals {
  /** True once the first Ctrl-C (or SIGTERM) came. */
  readonly interrupted: boolean;
  /** Stops listening: call when the command ends. */
  off(): void;
}

/**
 * Ctrl-C or SIGTERM: the first calls `stop` (cancel what is in flight and save); a second calls
 * `leave` (to say what is left behind) and exits at once with the cancelled code.
 */
export function onStopSignals(stop: () => void, leave: () => void = () => {}): StopSignals {
  const signals = {
    interrupted: false,
    off: () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
  function onSignal() {
    if (signals.interrupted) {
      leave();
      process.exit(EXIT.cancelled);
    }
    signals.interrupted = true;
    stop();
  }
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return signals;
}

/**
 * The second Ctrl-C: the server the command launched ends with it (SIGKILL to its process group;
 * the first Ctrl-C's SIGTERM was its grace), so no server is left holding the GPU.
 */
export function endLaunchedNow(supervisor: Supervisor | null, say: (text: string) => void): void {
  const pid = supervisor?.endNow() ?? null;
  say(pid === null ? 'Stopping now.' : `Stopping now; ended the server this run launched (pid ${pid}) at once.`);
}

/** Stops the server the command started, if any, and warns about anything left running. */
export async function stopSupervised(supervisor: Supervisor | null, say: (text: string) => void): Promise<void> {
  if (!supervisor) return;
  const rep = await supervisor.stop();
  if (rep.leftBehind.length) say(`warning: ${rep.summary}`);
}
