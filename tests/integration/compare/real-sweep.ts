/**
 * A sweep folder made the way a person makes one: the real `speedmatrix sweep` CLI on the
 * simulator, four variants of which two cannot start (a max_model_len above the model's) and
 * two run 8K × 1 and 8K × 16, where four sequences at once leave requests queued and sixteen
 * do not (about 3× the total tok/s). The simulator at 5×, so a loaded machine keeps up. About 40 s.
 */
import { join } from 'node:path';
import { readSessionFile } from '../../../src-main/platform/session/read';
import type { Session } from '#shared/session/schema';
import { runCli } from '../../helpers/cli';
import { freePort } from '../../helpers/sim';

export const SWEEP_FILES = {
  fewSeqs: 'max-model-len-32768_max-num-seqs-4.speedmatrix.json',
  manySeqs: 'max-model-len-32768_max-num-seqs-16.speedmatrix.json',
};

export interface RealSweep {
  dir: string;
  /** The sessions of the two variants that ran: four sequences at once, and sixteen. */
  few: Session;
  many: Session;
}

async function readSession(file: string): Promise<Session> {
  const r = await readSessionFile(file);
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

export async function makeSweepFolder(root: string): Promise<RealSweep> {
  const dir = join(root, 'sweep');
  const port = await freePort();
  const r = await runCli(
    [
      'sweep',
      '--vary',
      '--max-model-len=99999999,32768',
      '--vary',
      '--max-num-seqs=4,16',
      '--contexts',
      '8k',
      '--concurrency',
      '1,16',
      '--prefill-contexts',
      '8k',
      '--duration',
      '10',
      '--max-output',
      '1024',
      '--sim-speed',
      '5',
      '--out-dir',
      dir,
      '--',
      'speedmatrix',
      'sim',
      'serve',
      'microsoft/Fara1.5-4B',
      '--sim-profile',
      'rtx-pro-6000-fara-4b-bf16',
      '--port',
      String(port),
      '--sim-speed',
      '5',
    ],
    { timeoutMs: 240_000 },
  );
  if (r.code !== 0) throw new Error(`speedmatrix sweep failed (${r.code}): ${r.stderr}\n${r.stdout}`);
  const [few, many] = await Promise.all([
    readSession(join(dir, SWEEP_FILES.fewSeqs)),
    readSession(join(dir, SWEEP_FILES.manySeqs)),
  ]);
  return { dir, few, many };
}
