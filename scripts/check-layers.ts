/**
 * Layers only point down, and folders never need each other in a circle: `npm run lint` runs this
 * and refuses both. The layers, lowest first, are in LAYERS; a file may import from its own layer
 * or a lower one. A layer of src-main is entered from above only through its public modules,
 * listed here once (`publicModules`); the rest of a layer is its own business. Inside a layer, the
 * folder graph must have no cycles. A node of that graph is the folder a file sits in;
 * a file directly in a source root is a node of its own.
 * See docs/architecture.md ("The layers").
 *
 *   node --import tsx scripts/check-layers.ts [ROOT]   (ROOT: the checkout to read; default this one)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

interface Layer {
  name: string;
  /** The folders (relative to the root) that belong to the layer. */
  folders: string[];
  /**
   * What the layers above may import, relative to the layer's folder (a folder means its
   * index.ts); absent: all of it (src-shared is entered as #shared/... by the page too).
   */
  publicModules?: string[];
}

/** Lowest first. */
export const LAYERS: Layer[] = [
  { name: 'shared', folders: ['src-shared'] },
  {
    name: 'platform',
    folders: ['src-main/platform'],
    publicModules: [
      'hardware',
      'hardware/detect',
      'hardware/format-hw',
      'hardware/nvidia-smi-parse',
      'hardware/nvidia-smi-path',
      'hardware/telemetry',
      'processes/command-lookup',
      'processes/external-command',
      'processes/login-shell-path',
      'processes/process-control',
      'processes/signal-child',
      'runtime/app-version',
      'runtime/node-entry',
      'runtime/node-spawner',
      'runtime/temp',
      'runtime/text',
      'session/create',
      'session/journal',
      'session/read',
      'session/summary',
      'session/write',
    ],
  },
  {
    name: 'engine',
    folders: ['src-main/engine'],
    publicModules: [
      'bench',
      'bench/load-dataset',
      'bench/load-trace',
      'bench/load-figures',
      'bench/load-run',
      'bench/load-worker',
      'bench/plan',
      'bench/progress',
      'bench/start-run',
      'bench/types',
      'bench/worker-transport',
      'server',
      'server/command-line',
      'server/failures',
      'server/launch',
      'server/launched-registry',
      'server/orphans',
      'server/platform-support',
      'server/port',
      'server/powershell',
      'server/probe',
      'server/supervisor',
      'server/supervisor-types',
      'server/target',
      'sim/help',
      'sim/profile',
      'sim/serve',
    ],
  },
  {
    name: 'workflows',
    folders: ['src-main/workflows'],
    publicModules: [
      'importers',
      'importers/open',
      'inputs/input-error',
      'inputs/load-input',
      'inputs/run-input',
      'orchestrator/orchestrator',
      'orchestrator/server-hardware',
      'orchestrator/server-side',
      'report/compare',
      'report/data-export',
      'report/html',
      'report/markdown',
      'report/pdf',
      'remote/follow',
      'remote/page-ssh-options',
      'remote/remote-cli',
      'remote/remote-run',
      'remote/ssh',
      'report/sweep',
      'site/build',
      'site/pages',
      'sweep/folder',
      'sweep/manifest',
      'sweep/plan',
      'sweep/reports',
      'sweep/run-sweep',
      'sweep/shared-storage',
      'sweep/slurm-sweep',
    ],
  },
  { name: 'hosts', folders: ['src-main/hosts', 'src-preload', 'src-renderer/src'] },
];
const SOURCES = LAYERS.flatMap((l) => l.folders);
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;
const SHARED_ALIAS = '#shared/';

export interface Edge {
  file: string;
  spec: string;
  from: string;
  to: string;
  /** The imported module, repo-relative, without extension (a folder for its index). */
  target: string;
}

function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** The layer a repo-relative path belongs to, as its index in LAYERS; -1 when it is in none. */
export function layerOf(path: string): number {
  return LAYERS.findIndex((l) => l.folders.some((f) => path === f || path.startsWith(`${f}/`)));
}

/** Every import between source files, as repo-relative folder nodes. */
export function importEdges(root: string): Edge[] {
  const nodeOf = (modulePath: string): string => {
    const dir = relative(root, dirname(modulePath));
    return SOURCES.includes(dir) ? relative(root, modulePath).replace(/\.tsx?$/, '') : dir;
  };
  const edges: Edge[] = [];
  for (const top of SOURCES) {
    for (const file of sourceFiles(join(root, top))) {
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const spec = m[1] ?? m[2];
        let target: string | null = null;
        if (spec.startsWith(SHARED_ALIAS)) target = join(root, 'src-shared', spec.slice(SHARED_ALIAS.length));
        else if (spec.startsWith('.')) target = resolve(dirname(file), spec);
        if (target) {
          const to = relative(root, target)
            .replace(/\.tsx?$/, '')
            .replace(/\/index$/, '');
          edges.push({ file: relative(root, file), spec, from: nodeOf(file), to: nodeOf(target), target: to });
        }
      }
    }
  }
  return edges;
}

/** Imports of source in a higher layer (package.json and resources/ sit outside every layer). */
export function upwardImports(edges: Edge[]): string[] {
  return edges
    .filter((e) => layerOf(e.to) > layerOf(e.from))
    .map(
      (e) =>
        `${e.file}: imports '${e.spec}' from layer "${LAYERS[layerOf(e.to)].name}", above its own layer "${LAYERS[layerOf(e.from)].name}"`,
    );
}

/** Imports from a higher layer into a module its layer does not list as public. */
export function privateImports(edges: Edge[]): string[] {
  const out: string[] = [];
  for (const e of edges) {
    const [from, to] = [layerOf(e.from), layerOf(e.to)];
    const layer = LAYERS[to];
    if (to < 0 || from <= to || !layer.publicModules) continue;
    const folder = layer.folders[0];
    const inside = e.target.slice(folder.length + 1);
    if (!layer.publicModules.includes(inside))
      out.push(
        `${e.file}: imports '${e.spec}', which layer "${layer.name}" does not list as public (publicModules in scripts/check-layers.ts)`,
      );
  }
  return out;
}

/**
 * The hosts side by side at the top, and what each may import of another: the Electron host wraps
 * the app's core; the CLI, the app's core, the preload and the page stand alone.
 */
export const HOSTS: Record<string, readonly string[]> = {
  'src-main/hosts/cli': [],
  'src-main/hosts/app-core': [],
  'src-main/hosts/electron': ['src-main/hosts/app-core'],
  'src-preload': [],
  'src-renderer/src': [],
};

const hostOf = (path: string): string | undefined =>
  Object.keys(HOSTS).find((h) => path === h || path.startsWith(`${h}/`));

/** Imports from one host into another that it may not use (HOSTS). */
export function crossHostImports(edges: Edge[]): string[] {
  return edges.flatMap((e) => {
    const [from, to] = [hostOf(e.file), hostOf(e.target)];
    if (!from || !to || from === to || HOSTS[from].includes(to)) return [];
    return [`${e.file}: imports '${e.spec}' from the host ${to}: move what both need below the hosts`];
  });
}

/** Strongly connected components of more than one node (Tarjan), each sorted. */
function cyclesOf(pairs: Iterable<[string, string]>): string[][] {
  const graph = new Map<string, Set<string>>();
  for (const [from, to] of pairs) {
    if (from === to) continue;
    (graph.get(from) ?? graph.set(from, new Set()).get(from)!).add(to);
  }
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, index.size);
    low.set(v, index.get(v)!);
    stack.push(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (stack.includes(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do scc.push((w = stack.pop()!));
      while (w !== v);
      if (scc.length > 1) out.push(scc.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

/** Folders that need each other in a circle. */
export function folderCycles(edges: Edge[]): string[][] {
  return cyclesOf(edges.map((e): [string, string] => [e.from, e.to]));
}

/**
 * Files that need each other in a circle, through any import (a type-only import too: the
 * circle is there for whoever reads or moves the files, whatever the compiler erases).
 */
export function fileCycles(edges: Edge[]): string[][] {
  const files = new Set(edges.map((e) => e.file));
  const fileOf = (target: string): string | undefined =>
    [`${target}.ts`, `${target}.tsx`, `${target}/index.ts`, `${target}/index.tsx`].find((f) => files.has(f));
  return cyclesOf(
    edges.flatMap((e): [string, string][] => {
      const to = fileOf(e.target);
      return to ? [[e.file, to]] : [];
    }),
  );
}

function main(root: string): number {
  const edges = importEdges(root);
  const upward = upwardImports(edges);
  const cycles = folderCycles(edges);
  const circles = fileCycles(edges);
  const reaching = privateImports(edges);
  const across = crossHostImports(edges);
  for (const u of upward) console.error(`import points up: ${u}`);
  for (const b of reaching) console.error(`import reaches inside a layer: ${b}`);
  for (const c of cycles) console.error(`import cycle between folders: ${c.join(' <-> ')}`);
  for (const c of circles) console.error(`import cycle between files: ${c.join(' <-> ')}`);
  for (const a of across) console.error(`import crosses hosts: ${a}`);
  if (upward.length || cycles.length || circles.length || reaching.length || across.length) {
    console.error(`Layers, lowest first: ${LAYERS.map((l) => l.name).join(' -> ')}.`);
    console.error('Move the shared piece down a layer, or pass what is needed in from above (docs/architecture.md).');
    return 1;
  }
  console.log(
    `layers point down (${LAYERS.map((l) => l.name).join(' -> ')}) through their public modules, no host imports another, no import cycles between folders or files`,
  );
  return 0;
}

if (import.meta.filename === resolve(process.argv[1] ?? '')) {
  process.exitCode = main(resolve(process.argv[2] ?? join(import.meta.dirname, '..')));
}
