/**
 * The one table `npm run bench` prints, and its JSON and Markdown copies under bench-results/
 * (named by time and commit, plus latest.*), so figures can be compared across commits.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/paths';
import type { Spread } from './stats';

export interface Row {
  /** Figure number and name, e.g. "1 Client absorb". */
  figure: string;
  measurement: string;
  /** Median (or the single value) and spread over repeats, in `unit`. */
  value: Spread;
  unit: string;
  /** Decimals to show. */
  digits: number;
  /** The goal in words ("≥ 200,000 tok/s"), empty when the figure has none. */
  goal: string;
  /** Whether the median meets the goal; null when there is no goal. */
  met: boolean | null;
  note?: string;
}

export function row(
  figure: string,
  measurement: string,
  value: Spread,
  unit: string,
  digits: number,
  goal?: { text: string; ok: (v: number) => boolean },
  note?: string,
): Row {
  return {
    figure,
    measurement,
    value,
    unit,
    digits,
    goal: goal?.text ?? '',
    met: goal ? goal.ok(value.median) : null,
    note,
  };
}

const num = (v: number, d: number): string =>
  Number.isFinite(v) ? v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d }) : 'n/a';

function cells(r: Row): string[] {
  const unit = r.unit ? ` ${r.unit}` : '';
  const med = `${num(r.value.median, r.digits)}${unit}`;
  const spreadText =
    r.value.n > 1 ? `${num(r.value.min, r.digits)} – ${num(r.value.max, r.digits)} (n=${r.value.n})` : 'n=1';
  const met = r.met === null ? '' : r.met ? 'yes' : 'NO';
  return [r.figure, r.measurement, med, spreadText, r.goal, met, r.note ?? ''];
}

const HEAD = ['Figure', 'Measurement', 'Median', 'Spread (min – max)', 'Goal', 'Met', 'Note'];

export function toMarkdown(rows: readonly Row[]): string {
  const esc = (s: string) => s.replace(/\|/g, '\\|');
  const lines = [`| ${HEAD.join(' | ')} |`, `|${HEAD.map(() => '---').join('|')}|`];
  for (const r of rows) lines.push(`| ${cells(r).map(esc).join(' | ')} |`);
  return lines.join('\n');
}

export function toText(rows: readonly Row[]): string {
  const all = [HEAD, ...rows.map(cells)];
  const widths = HEAD.map((_, i) => Math.max(...all.map((r) => r[i].length)));
  return all
    .map((r) =>
      r
        .map((c, i) => c.padEnd(widths[i]))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

function commit(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
}

export interface RunInfo {
  mode: 'quick' | 'full' | 'custom';
  startedAt: string;
  wallSeconds: number;
  errors: string[];
}

/** Writes bench-results/<time>-<commit>.{json,md} and latest.{json,md}; returns the Markdown path. */
export function saveResults(rows: readonly Row[], info: RunInfo): string {
  const dir = join(ROOT, 'bench-results');
  mkdirSync(dir, { recursive: true });
  const sha = commit();
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}, Node ${process.version}`;
  const json = JSON.stringify({ commit: sha, machine, ...info, rows }, null, 2);
  const md =
    `# SpeedMatrix benchmark figures\n\nCommit ${sha}, ${info.mode} run (\`${info.mode === 'quick' ? 'BENCH_QUICK=1 ' : ''}npm run bench\`), ` +
    `${info.startedAt}, ${Math.round(info.wallSeconds)} s in all, on ${machine}.\n\n${toMarkdown(rows)}\n` +
    (info.errors.length ? `\nFigures that failed to run:\n${info.errors.map((e) => `- ${e}`).join('\n')}\n` : '');
  const stamp = info.startedAt.replace(/[:.]/g, '-');
  for (const name of [`${stamp}-${sha}`, 'latest']) {
    writeFileSync(join(dir, `${name}.json`), json);
    writeFileSync(join(dir, `${name}.md`), md);
  }
  return join(dir, 'latest.md');
}
