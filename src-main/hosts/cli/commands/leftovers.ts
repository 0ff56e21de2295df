/**
 * Servers an earlier SpeedMatrix launched and could not stop (it was killed): listed before a
 * new launch, then ended (--yes, or the person says so at the prompt) or left with a hint.
 */
import { createInterface } from 'node:readline/promises';
import { describeLaunched, type LaunchedRegistry } from '../../../engine/server/launched-registry';

export async function offerToEndLeftovers(
  registry: LaunchedRegistry,
  yes: boolean,
  say: (t: string) => void,
): Promise<void> {
  const left = await registry.leftovers();
  if (left.length === 0) return;
  say(
    `An earlier SpeedMatrix run was killed and left ${left.length === 1 ? 'a server' : `${left.length} servers`} running:`,
  );
  for (const e of left) say(`  ${describeLaunched(e)}`);
  let end = yes;
  if (!end && process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    end = /^y(es)?$/i.test((await rl.question('End them now? [y/N] ')).trim());
    rl.close();
  } else if (!end) {
    say('They are left running (they may hold GPU memory and ports). Add --yes to end them.');
  }
  if (!end) return;
  for (const e of left)
    say(
      (await registry.end(e))
        ? `Ended process group ${e.pgid}.`
        : `Could not end process group ${e.pgid}; end it by hand (kill -- -${e.pgid}).`,
    );
}
