/** The recently opened or saved session files, newest first, kept in a small JSON file. */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../platform/session/write';

const MAX_RECENT = 10;

export class RecentFiles {
  private files: string[] | null = null;
  constructor(private readonly dataDir: string | null) {}

  private get path(): string | null {
    return this.dataDir ? join(this.dataDir, 'recent-files.json') : null;
  }

  async list(): Promise<string[]> {
    if (this.files) return this.files;
    this.files = [];
    if (this.path) {
      try {
        const parsed: unknown = JSON.parse(await readFile(this.path, 'utf8'));
        if (Array.isArray(parsed))
          this.files = parsed.filter((f): f is string => typeof f === 'string').slice(0, MAX_RECENT);
      } catch {
        // No list yet, or an unreadable one: start empty.
      }
    }
    return this.files;
  }

  async add(file: string): Promise<string[]> {
    const next = [file, ...(await this.list()).filter((f) => f !== file)].slice(0, MAX_RECENT);
    this.files = next;
    // Losing the recent list is not worth an error message.
    if (this.path) await writeFileAtomic(this.path, JSON.stringify(next));
    return next;
  }
}
