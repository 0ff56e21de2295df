/**
 * Preloaded into a stand-in utility process: what Electron's utility process gives a module.
 * It talks to main through `process.parentPort` ('message' events carry `{ data, ports }`), and
 * has no `process.send`; `process.type` is 'utility' and `process.versions.electron` is set, so
 * code that spawns from here sees it is under Electron. Like main, it cannot run Electron's binary
 * as Node (run-as-node-fuse.cjs).
 */
'use strict';
const { EventEmitter } = require('node:events');
require('./run-as-node-fuse.cjs');

process.versions.electron = require('../../../../node_modules/electron/package.json').version;

// A worker thread of the utility process (Node passes this preload on to it) has no channel to main: Electron
// gives `process.parentPort` to the process's main thread only.
if (require('node:worker_threads').isMainThread) {
  const send = process.send.bind(process);
  const parentPort = new EventEmitter();
  parentPort.postMessage = (message) => send(message);
  process.on('message', (data) => parentPort.emit('message', { data, ports: [] }));
  process.send = undefined;
  // Electron ends a utility process with its main process: a test that fails before stopping what it started
  // leaves nothing running.
  process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
  Object.defineProperty(process, 'parentPort', { value: parentPort });
  Object.defineProperty(process, 'type', { value: 'utility' });
}
