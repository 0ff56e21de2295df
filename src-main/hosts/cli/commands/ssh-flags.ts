/** `--ssh HOST` and `--ssh-option KEY=VALUE`: do the work on another machine (README "A GPU server over SSH"). */
import type { Command } from 'commander';

export interface SshFlags {
  ssh?: string;
  sshOption: string[];
}

export function addSshOptions(cmd: Command): Command {
  return cmd
    .option(
      '--ssh <host>',
      "do it on this host with the speedmatrix installed there, over the system's ssh (an alias from ~/.ssh/config, or user@host)",
    )
    .option(
      '--ssh-option <KEY=VALUE>',
      'passed on to ssh as -o KEY=VALUE, e.g. Port=2222 (repeat for more)',
      (v: string, prev: string[]) => [...prev, v],
      [] as string[],
    );
}
