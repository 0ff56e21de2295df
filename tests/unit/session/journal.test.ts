import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Journal, journalPathFor, recoverFromJournal } from '../../../src-main/platform/session/journal';
import { sampleCell, sampleSession } from '../../helpers/sample-session';

const dir = mkdtempSync(join(tmpdir(), 'sm-journal-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('session journal', () => {
  it('restores every completed cell after a torn last line, latest record winning', () => {
    const base = { ...sampleSession(), cells: [] };
    const journal = new Journal(journalPathFor(join(dir, 'run.speedmatrix.json')));
    journal.append({ kind: 'start', session: base });
    journal.append({ kind: 'cell', cell: sampleCell(8192, 1) });
    journal.append({ kind: 'cell', cell: sampleCell(8192, 2, { status: 'error', reason: 'HTTP 500' }) });
    journal.append({ kind: 'cell', cell: sampleCell(8192, 2) });
    journal.append({
      kind: 'event',
      event: { at: '2026-11-29T10:01:00Z', level: 'warn', message: 'server restarted' },
    });
    appendFileSync(journal.path, '{"kind":"cell","cell":{"context":16384,"concu'); // the crash

    const recovered = recoverFromJournal(journal.path);
    expect(recovered).not.toBeNull();
    expect(recovered!.cells.map((c) => [c.context, c.concurrency, c.status])).toEqual([
      [8192, 1, 'valid'],
      [8192, 2, 'valid'],
    ]);
    expect(recovered!.events.at(-1)?.message).toBe('server restarted');
  });

  it('scrubs secrets from the journal header', () => {
    const s = sampleSession();
    s.server.argv = ['vllm', 'serve', 'm', '--api-key', 'sk-SECRET'];
    const journal = new Journal(join(dir, 'secret.journal'));
    journal.append({ kind: 'start', session: s });
    expect(recoverFromJournal(journal.path)!.server.argv).toEqual(['vllm', 'serve', 'm', '--api-key', '<redacted>']);
  });

  it('returns null when there is no journal', () => {
    expect(recoverFromJournal(join(dir, 'none.journal'))).toBeNull();
  });
});
