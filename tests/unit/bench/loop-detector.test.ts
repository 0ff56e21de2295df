import { describe, expect, it } from 'vitest';
import { findLoop, LoopDetector } from '../../../src-main/engine/bench/loop-detector';
import { fillerText } from '../../../src-main/engine/bench/prompts';

// Varied prose that never repeats a 64-character window: numbered sentences.
const varied = (chars: number) => {
  let s = '';
  for (let i = 0; s.length < chars; i++)
    s += `Sentence ${i} tells of harbour ${i * 7} and the ${i % 13} gulls over quay ${i * 31}. `;
  return s.slice(0, chars);
};

describe('loop detector (METHOD.md)', () => {
  it('stays quiet on varied prose', () => {
    expect(findLoop(varied(40_000))).toBeNull();
  });

  it('fires on a passage repeated 4 whole times covering >= 4096 characters, with the period as evidence', () => {
    const passage = varied(1500);
    const found = findLoop(varied(3000) + passage.repeat(4));
    expect(found).not.toBeNull();
    expect(found?.period).toBe(1500);
    expect(found?.repeats).toBeGreaterThanOrEqual(4);
    expect(found?.excerpt.endsWith('…')).toBe(true);
    expect(found?.excerpt.length).toBe(401);
  });

  it('does not fire below 4 repeats or below 4096 characters covered', () => {
    const passage = varied(1500);
    expect(findLoop(varied(3000) + passage.repeat(3))).toBeNull(); // 3 repeats, 4500 chars
    const short = varied(200);
    expect(findLoop(varied(5000) + short.repeat(20))).toBeNull(); // 20 repeats but only 4000 chars
    expect(findLoop(varied(5000) + short.repeat(21))?.period).toBe(200); // 4200 chars
  });

  it('counts only whole periods as covered: 20 repeats and three quarters of a 200-character passage is not a loop', () => {
    const short = varied(200);
    // 4,150 characters repeat, but only 4,000 of them in whole periods (below 4,096).
    expect(findLoop(varied(5000) + short.repeat(20) + short.slice(0, 150))).toBeNull();
    expect(findLoop(varied(5000) + short.repeat(21) + short.slice(0, 150))).toMatchObject({ period: 200, repeats: 21 });
  });

  it('ignores periods of only whitespace', () => {
    expect(findLoop(varied(2000) + ' '.repeat(8000))).toBeNull();
    expect(findLoop(varied(2000) + '\n \n '.repeat(3000))).toBeNull();
  });

  it('finds periods up to 32768 characters, not longer', () => {
    const p = varied(32_768);
    expect(findLoop(p.repeat(4))?.period).toBe(32_768);
    const q = varied(33_000);
    expect(findLoop(q.repeat(4))).toBeNull();
  });

  it('keeps four periods of history while streaming: a 30,000-character passage repeated after 300,000 characters', () => {
    const d = new LoopDetector();
    const passage = varied(30_000);
    // The prose before the loop forces the kept text to be trimmed more than once.
    const text = `${varied(300_000).replaceAll('Sentence', 'Line')}${passage.repeat(5)}`;
    for (let i = 0; i < text.length && d.found === null; i += 1000) d.push(text.slice(i, i + 1000));
    expect(d.found).toMatchObject({ period: 30_000, repeats: 4 });
  });

  it('runs incrementally on streamed text, checking every 256 characters', () => {
    const d = new LoopDetector();
    const passage = fillerText(700);
    const text = varied(1000) + passage.repeat(10);
    let firedAt = -1;
    for (let i = 0; i < text.length; i += 5) {
      if (d.push(text.slice(i, i + 5)) && firedAt < 0) firedAt = i + 5;
    }
    expect(d.found?.period).toBe(700);
    // It needs 4096 covered characters and 4 repeats (2800 chars): fires soon after 1000 + 4096 + anchor.
    expect(firedAt).toBeGreaterThan(1000 + 4096);
    expect(firedAt).toBeLessThan(1000 + 4096 + 700 + 256);
  });
});
