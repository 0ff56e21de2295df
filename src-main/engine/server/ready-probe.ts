/**
 * The probe of a server the supervisor launched, once /health answers: what its log has said so
 * far (KV budget, arguments, version, fitted length, dtype) goes with the launch to probe.ts.
 */
import { toServerLaunch, type BuiltLaunch, type LaunchOptions } from './launch';
import { logKvBudget, type LogFacts } from './log-parse';
import { probeServer } from './probe';
import type { SupervisorConfig } from './supervisor-types';

export function probeLaunched(
  baseUrl: string,
  opts: LaunchOptions,
  built: BuiltLaunch,
  facts: LogFacts,
  cfg: SupervisorConfig,
): ReturnType<typeof probeServer> {
  return probeServer({
    baseUrl,
    apiKey: opts.apiKey,
    model: opts.engineKind === 'custom' ? undefined : (opts.servedModelName ?? opts.model),
    launch: toServerLaunch(opts, built),
    launchOptions: opts,
    logKv: logKvBudget(facts),
    logArgs: facts.nonDefaultArgs,
    logVersion: facts.version,
    logMaxModelLen: facts.autoFitMaxModelLen,
    logEngineConfig: { dtype: facts.engineDtype, quantization: facts.engineQuantization },
    userKvTokens: cfg.userKvTokens,
    backendHint: cfg.backendHint,
  });
}
