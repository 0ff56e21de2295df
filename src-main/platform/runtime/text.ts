/**
 * Text from files, whatever wrote them: UTF-8 with or without a byte order mark, and UTF-16
 * with one (Windows PowerShell 5's `>` and `Out-File` default, Notepad's "Unicode"). Every
 * place that reads a person's file (sessions, imports, simulator profiles) decodes through here.
 */
import { readFileSync } from 'node:fs';

type TextEncodingName = 'utf-8' | 'utf-8 with BOM' | 'utf-16le' | 'utf-16be';

/** `error` reads after "FILE is": "not valid UTF-8 text". */
type DecodedText = { ok: true; text: string; encoding: TextEncodingName } | { ok: false; error: string };

/** Decode bytes as text by their byte order mark, else as strict UTF-8. The BOM is never part of the text. */
export function decodeText(input: Uint8Array): DecodedText {
  const b = input;
  const decode = (label: 'utf-8' | 'utf-16le' | 'utf-16be', from: number, encoding: TextEncodingName): DecodedText => {
    try {
      return {
        ok: true,
        text: new TextDecoder(label, { fatal: true, ignoreBOM: true }).decode(b.subarray(from)),
        encoding,
      };
    } catch {
      const utf16 = encoding === 'utf-16le' || encoding === 'utf-16be';
      return {
        ok: false,
        error: utf16
          ? `not valid ${encoding.toUpperCase()} text (it starts with a ${encoding.toUpperCase()} byte order mark)`
          : 'not valid UTF-8 text',
      };
    }
  };
  if (b.length >= 3 && b[0] === 0xef && b[1] === 0xbb && b[2] === 0xbf) return decode('utf-8', 3, 'utf-8 with BOM');
  if (b.length >= 2 && b[0] === 0xff && b[1] === 0xfe) return decode('utf-16le', 2, 'utf-16le');
  if (b.length >= 2 && b[0] === 0xfe && b[1] === 0xff) return decode('utf-16be', 2, 'utf-16be');
  return decode('utf-8', 0, 'utf-8');
}

/** Text already decoded elsewhere (a dropped file's text) may still start with a BOM character. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Read a text file synchronously (small files: profiles); throws with the reason when it is not text. */
export function readTextFileSync(file: string): string {
  const d = decodeText(readFileSync(file));
  if (!d.ok) throw new Error(d.error);
  return d.text;
}

/** Whether `file` ends with `ext` (".json", ".speedmatrix.json"), ignoring case as Windows and macOS do. */
export function hasExtension(file: string, ext: string): boolean {
  return file.toLowerCase().endsWith(ext.toLowerCase());
}
