/**
 * The Sessions table of sessions compared (sweep-model.ts): each named once by its file and told
 * apart by what ran, where a sweep's variants are told apart by their settings.
 */
import { describe, expect, it } from 'vitest';
import { buildSweepModel } from '#shared/report/sweep-model';
import { sampleSession } from '../../helpers/sample-session';

const entries = () =>
  ['a.speedmatrix.json', 'b.speedmatrix.json'].map((file) => ({
    variant: { settings: [], label: file },
    file,
    session: sampleSession(),
    failure: null,
  }));

describe('the table of what was compared', () => {
  it('tells sessions compared apart by what ran, each file named once', () => {
    const t = buildSweepModel(entries(), 'sessions').variants;
    expect(t.header.slice(0, 3)).toEqual(['Session', 'What ran', 'Session file']);
    expect(t.rows[0].slice(0, 3)).toEqual([
      'A',
      'Fara1.5-4B on RTX PRO 6000 Blackwell Server Edition 96GB · vllm 0.30.1rc1.dev452+g73a583112',
      'a.speedmatrix.json',
    ]);
    expect(t.rows[0].filter((c) => c === 'a.speedmatrix.json')).toHaveLength(1);
  });

  it("tells a sweep's variants apart by their settings", () => {
    const t = buildSweepModel(entries()).variants;
    expect(t.header.slice(0, 3)).toEqual(['Variant', 'Settings', 'Session file']);
    expect(t.rows[1][1]).toBe('b.speedmatrix.json');
  });
});
