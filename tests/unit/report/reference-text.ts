/**
 * Reading the synthetic report (tests/fixtures/reports) and rendered Markdown in tests, independently of the
 * importer (so the importer is not checked against itself).
 */
import { readFileSync } from 'node:fs';
import { SYNTHETIC_REPORT } from '../../helpers/paths';

export const referenceText = (): string => readFileSync(SYNTHETIC_REPORT, 'utf8');
export const referenceLines = (): string[] => referenceText().split('\n');

/** Cells of a `| a | b |` row, with Markdown backslash escapes removed. */
export function rowCells(line: string): string[] {
  return line
    .trim()
    .replace(/^\|/, '')
    .replace(/\|$/, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim().replace(/\\(.)/g, '$1'));
}

/** Rows (header first, separator dropped) of the table whose header starts with `firstHeader`. */
export function tableAfter(text: string, firstHeader: string): string[][] {
  const lines = text.split('\n');
  const at = lines.findIndex((l) => l.includes(`| ${firstHeader} |`));
  if (at < 0) throw new Error(`no table with header ${firstHeader}`);
  const rows = [rowCells(lines[at].slice(lines[at].indexOf(`| ${firstHeader} |`)))];
  for (const l of lines.slice(at + 1)) {
    if (!l.startsWith('|')) break;
    if (/^\|[-|]+\|?$/.test(l)) continue;
    rows.push(rowCells(l));
  }
  return rows;
}

/** Label/value pairs of a block in the reference ("- Label" then "- Value"), between two headings. */
export function referenceBlock(from: string, to: string): [string, string][] {
  const lines = referenceLines();
  const a = lines.indexOf(from);
  const b = lines.indexOf(to, a + 1);
  const items = lines
    .slice(a + 1, b)
    .map((l) => l.replace(/^- /, '').trim())
    .filter(Boolean);
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < items.length; i += 2) pairs.push([items[i], items[i + 1]]);
  return pairs;
}

/** "- **Label**: Value" pairs of a Markdown section. */
export function markdownBlock(md: string, heading: string): [string, string][] {
  const lines = md.split('\n');
  const a = lines.indexOf(`## ${heading}`);
  const out: [string, string][] = [];
  for (const l of lines.slice(a + 1)) {
    if (l.startsWith('## ')) break;
    const m = /^- \*\*(.+?)\*\*: (.*)$/.exec(l);
    if (m) out.push([m[1], m[2].replace(/\\(.)/g, '$1')]);
  }
  return out;
}
