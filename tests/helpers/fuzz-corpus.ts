/**
 * A generated corpus of hostile and broken session files: truncations at every
 * section boundary, wrong types, huge numbers, NaN strings, deep nesting, invalid UTF-8,
 * duplicate keys, and markup / javascript: URLs in every string field the schema accepts.
 * Everything derives from a valid session, so each case differs from a good file in one way.
 */
import { checkSession } from '../../src-main/platform/session/read';
import type { Session } from '#shared/session/schema';
import { serializeSession } from '../../src-main/platform/session/write';
import { sampleSession } from './sample-session';

export interface FuzzCase {
  name: string;
  /** Bytes as they would be on disk (a string is written as UTF-8). */
  data: string | Uint8Array;
  /** 'error': must be refused; 'any': refused with a clear message, or opened and rendered safely. */
  expect: 'error' | 'any';
}

/** Payloads that would run or inject something if a string ever became markup or a URL. */
export const HOSTILE_STRINGS = [
  '<script>window.__pwned="script"</script>',
  '<img src=x onerror="window.__pwned=\'img\'">',
  'javascript:window.__pwned="href"',
  '<a href="javascript:window.__pwned=\'a\'">click</a><b>bold</b>',
  '"><svg onload="window.__pwned=\'svg\'"></svg><!--',
  '</textarea></style></title><iframe src="https://example.com"></iframe>',
] as const;

/** A session with a server log, events, evidence and every optional block filled, so there are many string fields. */
export function baseSession(): Session {
  const s = sampleSession();
  return {
    ...s,
    cells: s.cells.map((c) =>
      c.status === 'looped' ? { ...c, evidence: { ...c.evidence!, logLines: ['ERROR something failed'] } } : c,
    ),
  };
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Path = (string | number)[];

function leaves(value: Json, path: Path = [], out: { path: Path; value: Json }[] = []): { path: Path; value: Json }[] {
  if (value !== null && typeof value === 'object') {
    if (Array.isArray(value)) value.forEach((v, i) => leaves(v, [...path, i], out));
    else for (const [k, v] of Object.entries(value)) leaves(v, [...path, k], out);
  } else out.push({ path, value });
  return out;
}

function setAt(doc: Json, path: Path, value: Json): Json {
  const copy = structuredClone(doc);
  let node = copy as Record<string | number, Json>;
  for (const p of path.slice(0, -1)) node = node[p] as Record<string | number, Json>;
  node[path[path.length - 1]] = value;
  return copy;
}

/**
 * The base session with a hostile payload in every string field where the schema accepts any
 * text (enumerations and the format marker keep their values, or the file would just be refused).
 * Map keys (e.g. environment variable names) get one too.
 */
export function hostileSession(): Session {
  let doc = JSON.parse(serializeSession(baseSession())) as Json;
  let i = 0;
  for (const { path, value } of leaves(doc)) {
    if (typeof value !== 'string') continue;
    const candidate = setAt(doc, path, `${HOSTILE_STRINGS[i % HOSTILE_STRINGS.length]} ${value}`);
    if (checkSession(candidate).ok) {
      doc = candidate;
      i++;
    }
  }
  const withKey = structuredClone(doc) as { server: { env: Record<string, string> } };
  withKey.server.env[HOSTILE_STRINGS[1]] = HOSTILE_STRINGS[0];
  if (checkSession(withKey).ok) doc = withKey as unknown as Json;
  const r = checkSession(doc);
  if (!r.ok) throw new Error(r.error.message);
  return r.data;
}

/** How many string fields hostileSession() filled (so a test can show the corpus reaches them). */
export function hostileStringCount(s: Session): number {
  return leaves(JSON.parse(JSON.stringify(s)) as Json).filter(
    (l) => typeof l.value === 'string' && HOSTILE_STRINGS.some((h) => (l.value as string).includes(h)),
  ).length;
}

/** Offsets in the serialized file where each section (a key at depth 1 or 2) begins. */
function sectionBoundaries(text: string): number[] {
  const out: number[] = [];
  const re = /\n( {2}| {4})"[^"\n]+": /g;
  for (let m = re.exec(text); m; m = re.exec(text)) out.push(m.index + 1);
  return out;
}

export function fuzzCorpus(): FuzzCase[] {
  const base = baseSession();
  // Pretty-printed (as people edit files by hand), so sections start on their own lines.
  const doc = JSON.parse(serializeSession(base)) as Json;
  const text = `${JSON.stringify(doc, null, 2)}\n`;
  const cases: FuzzCase[] = [];

  // Truncations at every section boundary, and one character into each section.
  for (const at of sectionBoundaries(text)) {
    cases.push({ name: `truncated at ${at}`, data: text.slice(0, at), expect: 'error' });
    cases.push({ name: `truncated at ${at + 1}`, data: text.slice(0, at + 1), expect: 'error' });
  }
  cases.push({ name: 'empty file', data: '', expect: 'error' });

  // Wrong types: every leaf swapped for a value of another type.
  for (const { path, value } of leaves(doc)) {
    const swapped: Json =
      typeof value === 'number'
        ? String(value)
        : typeof value === 'string'
          ? 12345
          : typeof value === 'boolean'
            ? 'yes'
            : { wrong: true };
    cases.push({
      name: `wrong type at ${path.join('.')}`,
      data: JSON.stringify(setAt(doc, path, swapped)),
      expect: path[0] === 'format' || path[0] === 'formatVersion' ? 'error' : 'any',
    });
  }
  // Whole sections of the wrong shape.
  for (const key of Object.keys(doc as object)) {
    cases.push({
      name: `section ${key} is a string`,
      data: JSON.stringify(setAt(doc, [key], '<script>1</script>')),
      expect: 'any',
    });
    cases.push({
      name: `section ${key} is an array`,
      data: JSON.stringify(setAt(doc, [key], [1, 2, 3])),
      expect: 'any',
    });
  }

  // Huge numbers and NaN strings in every numeric field.
  for (const { path, value } of leaves(doc)) {
    if (typeof value !== 'number') continue;
    const p = path.join('.');
    const raw = JSON.stringify(setAt(doc, path, 424242.5));
    cases.push({ name: `1e308 at ${p}`, data: raw.replace('424242.5', '1e308'), expect: 'any' });
    cases.push({ name: `1e999 (Infinity) at ${p}`, data: raw.replace('424242.5', '1e999'), expect: 'error' });
    cases.push({ name: `-1e999 at ${p}`, data: raw.replace('424242.5', '-1e999'), expect: 'error' });
    cases.push({ name: `"NaN" at ${p}`, data: raw.replace('424242.5', '"NaN"'), expect: 'error' });
    cases.push({ name: `bare NaN at ${p}`, data: raw.replace('424242.5', 'NaN'), expect: 'error' });
  }

  // Deep nesting inside a field and as the whole document.
  cases.push({
    name: 'deep nesting in serverLog (100,000 arrays)',
    data: text.replace('"serverLog": {', `"deep": ${'['.repeat(100_000)}${']'.repeat(100_000)}, "serverLog": {`),
    expect: 'any',
  });
  cases.push({ name: 'deep nesting unclosed', data: '['.repeat(200_000), expect: 'error' });
  cases.push({ name: 'deep objects', data: '{"a":'.repeat(50_000) + '1' + '}'.repeat(50_000), expect: 'error' });

  // Invalid UTF-8: a lone continuation byte, an overlong form, a truncated sequence inside a string.
  const bytes = Buffer.from(text, 'utf8');
  const model = bytes.indexOf(Buffer.from('Fara1.5-4B'));
  for (const [label, bad] of [
    ['lone continuation byte', [0x80]],
    ['overlong slash', [0xc0, 0xaf]],
    ['truncated 3-byte sequence', [0xe2, 0x82]],
    ['0xff byte', [0xff]],
  ] as const) {
    cases.push({
      name: `invalid UTF-8: ${label}`,
      data: Buffer.concat([bytes.subarray(0, model), Buffer.from(bad), bytes.subarray(model)]),
      expect: 'error',
    });
  }

  // Duplicate keys: JSON.parse keeps the last one, which is then validated like any other.
  cases.push({
    name: 'duplicate format key (last is foreign)',
    data: text.replace('{\n', '{\n  "format": "speedmatrix-session",\n').replace(/\n}\s*$/, ',\n  "format": "evil"\n}'),
    expect: 'error',
  });
  cases.push({
    name: 'duplicate cells key (last is markup)',
    data: text.replace(/\n}\s*$/, ',\n  "cells": "<script>window.__pwned=1</script>"\n}'),
    expect: 'error',
  });
  cases.push({
    name: 'duplicate engine key (last is valid)',
    data: text.replace(/\n}\s*$/, `,\n  "engine": ${JSON.stringify(base.engine)}\n}`),
    expect: 'any',
  });

  // Not a session at all, and markup in every string field (which must open and render as text).
  cases.push({
    name: 'HTML page',
    data: '<!doctype html><html><body><script>window.__pwned=1</script></body></html>',
    expect: 'error',
  });
  cases.push({ name: 'a JSON string', data: '"<script>alert(1)</script>"', expect: 'error' });
  cases.push({ name: 'markup in every string field', data: serializeSession(hostileSession()), expect: 'any' });
  return cases;
}
