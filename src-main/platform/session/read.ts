/**
 * Reading a session file: every way a file can be wrong becomes one clear sentence naming
 * the file, the field path and what was expected. Nothing here throws.
 */
import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { z } from 'zod';
import { type Result, fail, ok } from '#shared/result';
import { SESSION_FORMAT, SESSION_FORMAT_VERSION, type Session, SessionSchema } from '#shared/session/schema';
import { decodeText, stripBom } from '../runtime/text';

/** Larger files are refused before reading: a 100,000-sample session is well under 20 MB. */
export const MAX_SESSION_BYTES = 64 * 1024 * 1024;

export interface SessionReadError {
  file: string;
  message: string;
  /** Field path such as "cells[3].ttft.p50", when the problem is one field. */
  path?: string;
}

export async function readSessionFile(file: string): Promise<Result<Session, SessionReadError>> {
  const name = basename(file);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (e) {
    return fail({ file, message: `Cannot open ${name}: ${describeFsError(e)}.` });
  }
  if (size > MAX_SESSION_BYTES) {
    return fail({
      file,
      message: tooLarge(name, size),
    });
  }
  let bytes: Buffer;
  try {
    const fh = await open(file, 'r');
    try {
      bytes = await fh.readFile();
    } finally {
      await fh.close();
    }
  } catch (e) {
    return fail({ file, message: `Cannot read ${name}: ${describeFsError(e)}.` });
  }
  return parseSessionText(bytes, file);
}

/** Parse bytes or text already in memory (drag and drop, tests). */
export function parseSessionText(input: Uint8Array | string, file = 'session'): Result<Session, SessionReadError> {
  const name = basename(file);
  // Text dropped onto the window skips readSessionFile's size check; refuse it the same way.
  const bytes = typeof input === 'string' ? Buffer.byteLength(input, 'utf8') : input.byteLength;
  if (bytes > MAX_SESSION_BYTES) return fail({ file, message: tooLarge(name, bytes) });
  let text: string;
  if (typeof input === 'string') text = stripBom(input);
  else {
    const decoded = decodeText(input);
    if (!decoded.ok) return fail({ file, message: `${name} is ${decoded.error}, so it is not a session file.` });
    text = decoded.text;
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    const why = e instanceof RangeError ? 'it is nested too deeply' : (e as Error).message;
    const message = String((e as Error).message);
    // V8 names the end of input, or a position at (or past) the last non-blank character.
    const at = /at position (\d+)/.exec(message);
    const truncated =
      /end of (JSON )?input|Unterminated/i.test(message) || (at !== null && Number(at[1]) >= text.trimEnd().length);
    return fail({
      file,
      message: `${name} is not valid JSON (${why})${truncated ? '; the file looks truncated' : ''}.`,
    });
  }
  return checkSession(json, file);
}

/** Validate a parsed document: format marker, version, then the full schema. */
export function checkSession(json: unknown, file = 'session'): Result<Session, SessionReadError> {
  const name = basename(file);
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    return fail({ file, message: `${name} is not a SpeedMatrix session: expected a JSON object.` });
  }
  const doc = json as Record<string, unknown>;
  if (doc.format !== SESSION_FORMAT) {
    return fail({
      file,
      path: 'format',
      message: `${name} is not a SpeedMatrix session: expected "format": "${SESSION_FORMAT}".`,
    });
  }
  const version = doc.formatVersion;
  if (typeof version === 'number' && version > SESSION_FORMAT_VERSION) {
    return fail({
      file,
      path: 'formatVersion',
      message: `${name} was written by a newer SpeedMatrix (session format version ${version}); this version reads format ${SESSION_FORMAT_VERSION}. Update SpeedMatrix to open it.`,
    });
  }
  const parsed = SessionSchema.safeParse(json, { reportInput: true });
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const path = formatPath(issue.path);
    const more = parsed.error.issues.length - 1;
    return fail({
      file,
      path,
      message: `${name} is not a valid session: field ${path || '(top level)'}: ${describeIssue(issue)}${more > 0 ? ` (and ${more} more problem${more > 1 ? 's' : ''})` : ''}.`,
    });
  }
  return ok(parsed.data);
}

function tooLarge(name: string, bytes: number): string {
  return `${name} is ${(bytes / 1024 / 1024).toFixed(1)} MB; SpeedMatrix opens session files up to ${MAX_SESSION_BYTES / 1024 / 1024} MB. It is probably not a session file.`;
}

export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  if (issue.code === 'invalid_type') {
    const input = (issue as { input?: unknown }).input;
    const got =
      input === undefined
        ? 'nothing (the field is missing)'
        : input === null
          ? 'null'
          : Array.isArray(input)
            ? 'an array'
            : typeof input;
    return `expected ${issue.expected}, got ${got}`;
  }
  return issue.message;
}

function describeFsError(e: unknown): string {
  const err = e as NodeJS.ErrnoException;
  switch (err.code) {
    case 'ENOENT':
      return 'no such file';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'it is a folder, not a file';
    default:
      return err.message ?? String(e);
  }
}
