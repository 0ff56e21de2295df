#!/usr/bin/env node
// `speedmatrix` command. After `npm run build` it runs the compiled CLI (out/main/cli.js),
// which starts in a fraction of the time; when a source file is newer than that build (or
// there is none), it runs the TypeScript sources through tsx, so a fresh clone works right
// after `npm install` and an edit is never hidden by a stale build.
// SPEEDMATRIX_FROM_SOURCE=1 always runs the sources.
'use strict';
const { freshBuiltCli } = require('./built-entry.cjs');

const argv = process.argv.slice(2);
const built = process.env.SPEEDMATRIX_FROM_SOURCE === '1' ? null : freshBuiltCli();
if (built) {
  require(built).main(argv);
} else {
  import('tsx').then(() => import('./main.ts')).then((m) => (m.main ?? m.default.main)(argv));
}
