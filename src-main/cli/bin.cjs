#!/usr/bin/env node
// `speedmatrix` command. After `npm run build` it runs the compiled CLI (out/main/cli.js),
// which starts in a fraction of the time; when any source file is newer than that build (or
// there is none), it runs the TypeScript sources through tsx, so a fresh clone works right
// after `npm install` with no build step and an edit is never hidden by a stale build.
'use strict';
const { readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..');
const built = join(root, 'out', 'main', 'cli.js');

/** The newest modification time under `dir` (ms), or Infinity when it cannot be read. */
function newestUnder(dir) {
  let newest = 0;
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return e.code === 'ENOENT' ? 0 : Infinity;
  }
  for (const e of entries) {
    const path = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

function builtIsFresh() {
  let builtAt;
  try {
    builtAt = statSync(built).mtimeMs;
  } catch {
    return false;
  }
  const sources = ['src-main', 'src-shared', 'package.json'].map((p) => join(root, p));
  return sources.every((p) => (p.endsWith('.json') ? statSync(p).mtimeMs : newestUnder(p)) <= builtAt);
}

const argv = process.argv.slice(2);
if (process.env.SPEEDMATRIX_FROM_SOURCE !== '1' && builtIsFresh()) {
  require(built).main(argv);
} else {
  import('tsx')
    .then(() => import('./main.ts'))
    .then((m) => (m.main ?? m.default.main)(argv));
}
