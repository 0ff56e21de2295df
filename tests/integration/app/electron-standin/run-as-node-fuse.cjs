/**
 * The packaged app's RunAsNode fuse is off (package.json, build.electronFuses). Then Electron's
 * binary ignores ELECTRON_RUN_AS_NODE, and `child_process.fork` (which runs the binary with it)
 * no longer gives a Node: the binary starts the app again. Here that binary is Node itself, so
 * without this guard such a spawn would quietly work. Loaded into the stand-in's main process
 * (driver.cjs) and its utility processes (utility-child.cjs): a spawn of this process's own
 * binary as Node, from main or from a utility process, ends at once with exit 1 and says why.
 * The stand-in's own utilityProcess.fork (electron.cjs) runs through `asElectron`.
 */
'use strict';
const { ChildProcess } = require('node:child_process');

const MESSAGE =
  "[electron stand-in] Electron's binary started with ELECTRON_RUN_AS_NODE or child_process.fork: " +
  'the RunAsNode fuse is off, so it would start the app again instead of a Node program. Use utilityProcess.';

let electronsOwn = false;
const spawn = ChildProcess.prototype.spawn;

/** Whether a spawn runs this binary as Node: as fork does (an IPC channel) or with ELECTRON_RUN_AS_NODE. */
function runsAsNode(options) {
  if (options.file !== process.execPath) return false;
  const env = options.envPairs ?? [];
  const stdio = Array.isArray(options.stdio) ? options.stdio : [];
  return env.some((p) => p.startsWith('ELECTRON_RUN_AS_NODE=')) || stdio.includes('ipc');
}

ChildProcess.prototype.spawn = function (options) {
  if (!electronsOwn && runsAsNode(options)) {
    process.emitWarning(MESSAGE);
    const script = `process.stderr.write(${JSON.stringify(`${MESSAGE}\n`)}); process.exit(1)`;
    options = { ...options, args: [process.execPath, '-e', script], stdio: ['ignore', 'ignore', 'pipe'] };
  }
  return spawn.call(this, options);
};

/** Run `f` as Electron itself (its utility processes are not subject to the fuse). */
function asElectron(f) {
  electronsOwn = true;
  try {
    return f();
  } finally {
    electronsOwn = false;
  }
}

module.exports = { asElectron };
