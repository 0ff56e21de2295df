/**
 * The two ways a headless run gets its server: attach to one already running (no restart),
 * or launch one through the supervisor (restarted after a crash, stopped at the end, written
 * down in the launched-server registry until it is gone).
 */
import type { LaunchOptions } from '../../engine/server/launch';
import { LaunchedRegistry } from '../../engine/server/launched-registry';
import { probeServer } from '../../engine/server/probe';
import { Supervisor } from '../../engine/server/supervisor';
import type { StopReport } from '../../engine/server/supervisor-types';
import type { StartupFailure } from '../../engine/server/failures';
import type { ServerTarget } from '../../engine/server/target';
import { fail, ok, type Result } from '#shared/result';
import type { ServerSide } from './orchestrator';

interface AttachOptions {
  url: string;
  apiKey?: string;
  model?: string;
  userKvTokens?: number;
}

export async function attachServer(o: AttachOptions): Promise<Result<ServerSide>> {
  const probed = await probeServer({ baseUrl: o.url, apiKey: o.apiKey, model: o.model, userKvTokens: o.userKvTokens });
  return probed.ok ? ok({ target: probed.data }) : fail(probed.error);
}

interface LaunchConfig {
  readyTimeoutMs?: number;
  userKvTokens?: number;
  /** Where launched servers are written down (default: the user's data folder). */
  registry?: LaunchedRegistry;
  /** Told when the server dies mid-run and as it comes back. */
  onRestart?: (text: string) => void;
}

/** A server this process launched: the run's ServerSide, plus stopping it. */
class SupervisedServer implements ServerSide {
  constructor(
    readonly supervisor: Supervisor,
    private current: ServerTarget,
    private readonly launch: LaunchOptions,
    private readonly cfg: LaunchConfig,
  ) {}

  get target(): ServerTarget {
    return this.current;
  }

  logLines = (): string[] => this.supervisor.logTail(2000);

  /** The restart policy of a supervised server: the same launch again; null when it cannot come back. */
  restart = async (message: string): Promise<ServerTarget | null> => {
    this.cfg.onRestart?.(`The server died (${message}); restarting it...`);
    await this.supervisor.stop();
    const started = await this.supervisor.start(this.launch, {
      readyTimeoutMs: this.cfg.readyTimeoutMs,
      userKvTokens: this.cfg.userKvTokens,
    });
    if (!started.ok) {
      this.cfg.onRestart?.(`Could not restart the server: ${started.error.message}`);
      return null;
    }
    this.current = { ...started.data, simulated: this.current.simulated || started.data.simulated };
    this.cfg.onRestart?.('The server is back; continuing.');
    return this.current;
  };

  stop(): Promise<StopReport> {
    return this.supervisor.stop();
  }
}

/** Launch and wait until ready. On failure the supervisor has already cleaned up after itself. */
export async function launchServer(
  launch: LaunchOptions,
  cfg: LaunchConfig,
  supervisor = new Supervisor(),
): Promise<Result<SupervisedServer, StartupFailure>> {
  (cfg.registry ?? new LaunchedRegistry()).track(supervisor, launch.port ?? null);
  const started = await supervisor.start(launch, {
    readyTimeoutMs: cfg.readyTimeoutMs,
    userKvTokens: cfg.userKvTokens,
  });
  if (!started.ok) return fail(started.error);
  const target = launch.engineKind === 'simulator' ? { ...started.data, simulated: true } : started.data;
  return ok(new SupervisedServer(supervisor, target, launch, cfg));
}
