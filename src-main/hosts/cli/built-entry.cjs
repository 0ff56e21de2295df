// Which CLI to run. Installed from the package (`npm pack`, README "On a GPU server"): its
// compiled CLI, out/cli/cli.js; the package has no sources. In a clone: the compiled one
// (out/main/cli.js, from `npm run build`) when no source file is newer than it, else none
// (the caller runs the TypeScript sources through tsx).
// Plain CommonJS with no dependencies: it runs before anything else, on every start.
'use strict';
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

const root = join(__dirname, '..', '..', '..');
const builtCli = join(root, 'out', 'main', 'cli.js');
const packagedCli = join(root, 'out', 'cli', 'cli.js');
/** The package ships no TypeScript: a CLI without its sources beside it is the installed one. */
const installed = !existsSync(join(__dirname, 'main.ts'));

/** The newest modification time under `dir` (ms); Infinity when it cannot be read. */
function newestUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch (e) {
    return e.code === 'ENOENT' ? 0 : Infinity;
  }
  let newest = 0;
  for (const e of entries) {
    const path = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestUnder(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** The compiled CLI's path: the package's, or a clone's when at least as new as every source it was built from, else null. */
function freshBuiltCli() {
  if (installed) return packagedCli;
  let builtAt;
  try {
    builtAt = statSync(builtCli).mtimeMs;
  } catch {
    return null;
  }
  const sourcesAt = Math.max(
    newestUnder(join(root, 'src-main')),
    newestUnder(join(root, 'src-shared')),
    statSync(join(root, 'package.json')).mtimeMs,
  );
  return sourcesAt <= builtAt ? builtCli : null;
}

module.exports = { freshBuiltCli, builtCli };
