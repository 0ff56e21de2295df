/**
 * What each command's flags hold as commander gives them (text, as typed): the NAME-flags.ts
 * files declare them, the NAME-action.ts files take them, and the settings of a run or a load
 * test go on to workflows/inputs, whose rules read them.
 */
import type { LoadInput } from '../../../workflows/inputs/load-input';
import type { RunInput } from '../../../workflows/inputs/run-input';

/** `run`: the matrix's settings and how to reach, launch or resume the server. */
export interface RunFlags extends RunInput {
  url?: string;
  apiKey?: string;
  apiKeyFile?: string;
  model?: string;
  out?: string;
  report?: string;
  resume?: string;
  jsonProgress?: boolean;
  launch?: boolean;
  demo?: boolean;
  readyTimeout?: string;
  hardware?: string;
  yes?: boolean;
}

/** The server's flags are `run`'s. */
export interface LoadFlags
  extends
    LoadInput,
    Pick<
      RunFlags,
      'url' | 'apiKey' | 'apiKeyFile' | 'model' | 'launch' | 'demo' | 'simSpeed' | 'readyTimeout' | 'hardware' | 'yes'
    > {
  out?: string;
  jsonProgress?: boolean;
}

/** `serve`. */
export interface ServeFlags {
  readyTimeout: string;
  stopTimeout: string;
  logFile?: string;
  json?: boolean;
  yes?: boolean;
}

/** `sweep`: the matrix's settings, the varied launch flags, and Slurm. */
export interface SweepFlags extends RunFlags {
  vary: string[];
  outDir?: string;
  slurm?: boolean;
  slurmOption: string[];
  slurmPoll?: string;
  status?: string;
  report?: string;
  /** Set by the sweep's Slurm job script only: run this variant (by slug) of the sweep in --out-dir. */
  slurmJob?: string;
}
