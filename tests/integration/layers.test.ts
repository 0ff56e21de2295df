/**
 * `npm run lint` refuses imports that break the layers (docs/architecture.md, "The layers"): the
 * layer check runs, as the lint script runs it, on a temporary copy of the sources with one
 * broken import added.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, cpSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect } from 'vitest';
import { tempTest as test } from '../helpers/fixtures';

const ROOT = resolve(__dirname, '../..');
const CHECK = join(ROOT, 'scripts/check-layers.ts');
const TSX = pathToFileURL(createRequire(join(ROOT, 'package.json')).resolve('tsx')).href;
const SOURCES = ['src-shared', 'src-main', 'src-preload', 'src-renderer/src'];

function copyOfSources(dir: string): string {
  for (const s of SOURCES) cpSync(join(ROOT, s), join(dir, s), { recursive: true });
  return dir;
}

function checkLayers(root: string): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, ['--import', TSX, CHECK, root], { encoding: 'utf8' });
  return { code: r.status, out: r.stdout + r.stderr };
}

describe('the layer check', () => {
  test('is part of npm run lint', () => {
    const lint = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.lint as string;
    expect(lint).toContain('scripts/check-layers.ts');
  });

  test('passes on the sources as they are', ({ tempDir }) => {
    const r = checkLayers(copyOfSources(tempDir('sm-layers-')));
    expect(r.out).toMatch(/layers point down/);
    expect(r.code).toBe(0);
  });

  test('refuses an import that points up a layer, naming the file and the layers', ({ tempDir }) => {
    const root = copyOfSources(tempDir('sm-layers-'));
    appendFileSync(join(root, 'src-main/platform/runtime/temp.ts'), "\nexport { main } from '../../hosts/cli/main';\n");
    const r = checkLayers(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      `src-main/platform/runtime/temp.ts: imports '../../hosts/cli/main' from layer "hosts", above its own layer "platform"`,
    );
  });

  test('refuses an import into a lower layer of a module that layer does not list as public', ({ tempDir }) => {
    const root = copyOfSources(tempDir('sm-layers-'));
    appendFileSync(
      join(root, 'src-main/workflows/report/markdown.ts'),
      "\nexport { percentile as _p } from '../../engine/bench/stats';\n",
    );
    const r = checkLayers(root);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(
      /markdown\.ts: imports '\.\.\/\.\.\/engine\/bench\/stats', which layer "engine" does not list as public/,
    );
  });

  test('refuses an import cycle between folders of one layer', ({ tempDir }) => {
    const root = copyOfSources(tempDir('sm-layers-'));
    appendFileSync(join(root, 'src-main/engine/server/probe.ts'), "\nexport { planRun as _p } from '../bench/plan';\n");
    const r = checkLayers(root);
    expect(r.code).toBe(1);
    expect(r.out).toMatch(/import cycle between folders: .*src-main\/engine\/bench.*src-main\/engine\/server/);
  });
  test('refuses an import cycle between two files of one folder, a type-only import too, naming both', ({
    tempDir,
  }) => {
    const root = copyOfSources(tempDir('sm-layers-'));
    // stats.ts is imported by figures.ts; a type from figures.ts back in stats.ts closes the circle.
    appendFileSync(
      join(root, 'src-main/engine/bench/stats.ts'),
      "\nimport type { StreamTimes as _F } from './figures';\nexport type _G = _F;\n",
    );
    const r = checkLayers(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      'import cycle between files: src-main/engine/bench/figures.ts <-> src-main/engine/bench/stats.ts',
    );
  });

  test('refuses a host importing another host, and lets the Electron host use the app core', ({ tempDir }) => {
    const root = copyOfSources(tempDir('sm-layers-'));
    appendFileSync(
      join(root, 'src-main/hosts/app-core/user-error.ts'),
      "\nexport { main as _m } from '../cli/main';\n",
    );
    const r = checkLayers(root);
    expect(r.code).toBe(1);
    expect(r.out).toContain(
      "import crosses hosts: src-main/hosts/app-core/user-error.ts: imports '../cli/main' from the host src-main/hosts/cli",
    );
    // The Electron host wraps the core (it imports app-core throughout) and passes on the sources as they are.
    expect(r.out).not.toMatch(/crosses hosts: src-main\/hosts\/electron/);
  });
});
