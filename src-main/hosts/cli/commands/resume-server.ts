/**
 * `run --resume FILE` with no server flag: the server the session launched is started again the
 * same way (the demo's simulator, the recorded command), since the one it measured went away with
 * the run; a session that attached by URL attaches to that URL again. An API key is never saved,
 * so a command that had one needs it given again: said with the exact command to type.
 */
import type { Session } from '#shared/session/schema';
import { REDACTED } from '#shared/session/secrets';
import { shellLine } from '#shared/shell-quote';
import { flagValue, launchOptionsFromCommand } from '../../../engine/server/command-line';
import type { LaunchOptions } from '../../../engine/server/launch';
import { EXIT } from './exit';
import { Refusal } from './out-folder';

/** argv with `--flag VALUE` set to `value` (or removed when null); `--flag=VALUE` forms too. */
function withFlag(argv: readonly string[], flag: string, value: string | null): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === flag) i++;
    else if (!argv[i].startsWith(`${flag}=`)) out.push(argv[i]);
  }
  return value === null ? out : [...out, flag, value];
}

/** The command a session's launched server ran, as a person types it; null for a server attached by URL. */
export function recordedCommand(session: Session): string[] | null {
  const s = session.server;
  if (s.kind === 'simulator') {
    const at = s.argv.indexOf('serve');
    return at < 0 ? null : ['speedmatrix', 'sim', ...s.argv.slice(at)];
  }
  if (s.kind === 'custom' || s.kind === 'vllm-native' || s.kind === 'vllm-docker')
    return s.argv.length ? [...s.argv] : null;
  return null;
}

export interface Relaunch {
  launch: LaunchOptions;
  /** The simulator's clock speed-up the session ran at, for the plan's timings. */
  simSpeed?: number;
}

/**
 * Launch options that start the session's server again, or null when it attached by URL. The
 * simulator gets `port` (any free one will do); a recorded key is filled in from `apiKey`.
 */
export function relaunchOf(session: Session, file: string, apiKey: string | undefined, port: number): Relaunch | null {
  const recorded = recordedCommand(session);
  if (!recorded) return null;
  const simulator = session.server.kind === 'simulator';
  let cmd = simulator ? withFlag(recorded, '--port', String(port)) : recorded;
  if (cmd.includes(REDACTED)) {
    // Our own simulator takes any key, or none; another server needs the one it was started with.
    if (simulator) cmd = withFlag(cmd, '--api-key', apiKey ?? null);
    else if (apiKey) cmd = cmd.map((a) => (a === REDACTED ? apiKey : a));
    else
      throw new Refusal(
        `the server this session launched had an API key, which is never saved. Give it again and resume:\n  SPEEDMATRIX_API_KEY=... ${shellLine(['speedmatrix', 'run', '--resume', file])}`,
        EXIT.usage,
      );
  }
  const launch = launchOptionsFromCommand(cmd);
  if (apiKey && !launch.apiKey) launch.apiKey = apiKey;
  const speed = simulator ? Number(flagValue(cmd, '--sim-speed')) : NaN;
  return { launch, simSpeed: Number.isFinite(speed) && speed > 0 ? speed : undefined };
}
