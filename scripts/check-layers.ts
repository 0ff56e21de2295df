/**
 * Import cycles between folders make layers meaningless, so `npm run lint` refuses them. Builds
 * the folder graph of every relative or @shared import in the sources and prints each cycle.
 * A node is the folder a file sits in; a file directly in a source root (an entry point such as
 * src-main/index.ts, or a loose helper such as src-renderer/src/format.ts) is a node of its own.
 * See docs/architecture.md.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const SOURCES = ['src-shared', 'src-main', 'src-preload', 'src-renderer/src'];
const IMPORT = /(?:^|\n)\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

function* sourceFiles(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sourceFiles(p);
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) yield p;
  }
}

/** The graph node of a module path (absolute, extension optional). */
function nodeOf(modulePath: string): string {
  const dir = relative(ROOT, dirname(modulePath));
  return SOURCES.includes(dir) ? relative(ROOT, modulePath).replace(/\.tsx?$/, '') : dir;
}

function targetNode(fromFile: string, spec: string): string | null {
  if (spec.startsWith('@shared/')) return nodeOf(join(ROOT, 'src-shared', spec.slice('@shared/'.length)));
  if (spec.startsWith('.')) return nodeOf(resolve(dirname(fromFile), spec));
  return null;
}

function folderGraph(): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const top of SOURCES) {
    for (const file of sourceFiles(join(ROOT, top))) {
      const from = nodeOf(file);
      const edges = graph.get(from) ?? graph.set(from, new Set()).get(from)!;
      for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
        const to = targetNode(file, m[1] ?? m[2]);
        if (to && to !== from) edges.add(to);
      }
    }
  }
  return graph;
}

/** Strongly connected components with more than one folder (Tarjan). */
function cycles(graph: Map<string, Set<string>>): string[][] {
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

const found = cycles(folderGraph());
for (const c of found) console.error(`import cycle between folders: ${c.join(' <-> ')}`);
if (found.length) {
  console.error('Move the shared piece down a layer (docs/architecture.md).');
  process.exit(1);
}
console.log('no import cycles between folders');
