/**
 * The body of `speedmatrix load`: checks the flags and the output folder, gets the server
 * (attach or launch, as `run` does), runs the load passes and prints each one as it ends.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { readDataset, type DatasetEntry } from '../../../engine/bench/load-dataset';
import { startLoadRun, type LoadEvent } from '../../../engine/bench/load-run';
import { readTrace, withTrace, type TraceEntry } from '../../../engine/bench/load-trace';
import { launchOptionsFromCommand } from '../../../engine/server/command-line';
import {
  hardwareOfTarget,
  readHardwareFile,
  REMOTE_NOT_RECORDED,
} from '../../../workflows/orchestrator/server-hardware';
import { LOAD_COLUMNS, loadAnswer, loadRow, passDetails, passLabel, passStartLine } from '#shared/report/load-model';
import type { LoadConfig } from '#shared/session/schema-load';
import { EXIT } from './exit';
import { errorWriter, exitCodeFor } from './command-io';
import type { LoadFlags } from './flag-types';
import { loadConfigFrom } from '../../../workflows/inputs/load-input';
import { InputError } from '../../../workflows/inputs/input-error';
import { Refusal, checkWritableFolder } from './out-folder';
import {
  apiKeyFrom,
  defaultSessionFile,
  detectLocalHardware,
  serverFlagsProblem,
  withServer,
  type RunInputs,
} from './server-command';
import type { RunFlags } from './flag-types';
import { positiveNumber } from '../../../workflows/inputs/run-input';

const usageProblem = (cmd: string[], flags: LoadFlags): string | null =>
  serverFlagsProblem(cmd, flags, {
    none: 'say which server to load: --url URL, --launch -- CMD..., or --demo.',
    launchExample: 'speedmatrix load --launch --rates 1,2 -- vllm serve MODEL',
  });

/** The flags checked into a configuration and the server inputs `getServer` takes. */
async function readInputs(
  cmd: string[],
  flags: LoadFlags,
): Promise<{ config: LoadConfig; inputs: RunInputs; dataset: DatasetEntry[] | null; trace: TraceEntry[] | null }> {
  let config: LoadConfig;
  let inputs: RunInputs;
  try {
    config = loadConfigFrom(flags);
    const apiKey = apiKeyFrom(flags as RunFlags, (t) => process.stderr.write(`${t}\n`));
    if (flags.out) {
      const file = resolve(flags.out);
      checkWritableFolder('--out', file);
      if (existsSync(file)) throw new Refusal(`--out: ${file} already exists; choose another --out.`, EXIT.usage);
    } else checkWritableFolder('the session file (add --out FILE to choose)', resolve('session'));
    const launch = flags.launch ? launchOptionsFromCommand(cmd) : null;
    if (launch && apiKey && !launch.apiKey) launch.apiKey = apiKey;
    inputs = {
      config: flags.simSpeed ? { simSpeed: positiveNumber('--sim-speed', flags.simSpeed) } : {},
      readyTimeoutMs: flags.readyTimeout ? positiveNumber('--ready-timeout', flags.readyTimeout) * 1000 : undefined,
      apiKey,
      launch,
      resumeSession: null,
    };
  } catch (e) {
    if (e instanceof Refusal) throw e;
    throw new Refusal((e as Error).message, EXIT.usage);
  }
  if (flags.hardware) {
    const hw = await readHardwareFile(resolve(flags.hardware));
    if (!hw.ok) throw new Refusal(`--hardware: ${hw.error}`, EXIT.usage);
    inputs.given = hw.data;
  }
  let dataset: DatasetEntry[] | null = null;
  let trace: TraceEntry[] | null = null;
  try {
    if (flags.dataset) dataset = await readDataset(resolve(flags.dataset));
    if (flags.trace) trace = await readTrace(resolve(flags.trace));
  } catch (e) {
    throw new Refusal((e as Error).message, EXIT.usage);
  }
  return { config: trace ? withTrace(config, trace) : config, inputs, dataset, trace };
}

/** A pass's progress and result as a line (or a JSON event with --json-progress). */
function printer(json: boolean, say: (t: string) => void): (e: LoadEvent) => void {
  return (e) => {
    if (json) {
      if (e.type !== 'tick') process.stdout.write(`${JSON.stringify(e)}\n`);
      return;
    }
    if (e.type === 'pass-start') say(passStartLine(e, e.index, e.total));
    else if (e.type === 'pass-done') {
      const row = loadRow(e.result);
      say(
        `  ${passLabel(e.result)}: ${LOAD_COLUMNS.slice(1)
          .map((c, i) => `${c} ${row[i + 1]}`)
          .join(' | ')}`,
      );
      for (const line of passDetails(e.result)) say(`  ${line}`);
    } else if (e.type === 'log') say(`${e.level === 'warn' ? 'warning: ' : ''}${e.message}`);
  };
}

export async function runLoadCommand(cmd: string[], flags: LoadFlags): Promise<number> {
  const err = errorWriter('load');
  const problem = usageProblem(cmd, flags);
  if (problem) {
    err(problem);
    return EXIT.usage;
  }
  const json = Boolean(flags.jsonProgress);
  const say = (t: string) => (json ? process.stderr : process.stdout).write(`${t}\n`);
  let read: Awaited<ReturnType<typeof readInputs>>;
  try {
    read = await readInputs(cmd, flags);
  } catch (e) {
    return exitCodeFor(e, err, e instanceof InputError ? EXIT.usage : EXIT.failed);
  }
  const { config, inputs, dataset, trace } = read;
  const stopping = () => say('Stopping: saving the rates measured so far (Ctrl-C again to quit at once)...');
  return withServer({ flags: flags as RunFlags, inputs, say, err }, stopping, async (side, measured) => {
    const sessionFile = resolve(flags.out ?? defaultSessionFile(`load-${side.target.model}`, Boolean(flags.demo)));
    if (existsSync(sessionFile)) throw new Refusal(`${sessionFile} already exists; choose another --out.`, EXIT.failed);
    say(`Server: ${side.target.baseUrl}  model ${side.target.model}${side.target.simulated ? '  [SIMULATED]' : ''}`);
    // The server's hardware, decided as for a matrix run (docs/load.md, "The session").
    const hardware = await hardwareOfTarget(side.target, {
      given: inputs.given,
      detectLocal: detectLocalHardware(say),
    });
    if (hardware?.notes.includes(REMOTE_NOT_RECORDED)) say(`note: ${REMOTE_NOT_RECORDED}`);
    const run = startLoadRun({
      target: side.target,
      config,
      simSpeed: inputs.config.simSpeed ?? side.target.simSpeed,
      hardware,
      sessionFile,
      dataset: dataset ?? undefined,
      trace: trace ?? undefined,
      onEvent: printer(json, say),
      serverLogLines: side.logLines,
    });
    measured.started(run.stop);
    const { session, cancelled } = await run.done;
    say(loadAnswer(session.load!));
    say(`${cancelled ? 'Cancelled; saved what was measured' : 'Done'}${session.simulated ? ' (SIMULATED)' : ''}.`);
    say(`Session file: ${sessionFile}`);
    return cancelled ? EXIT.cancelled : EXIT.ok;
  });
}
