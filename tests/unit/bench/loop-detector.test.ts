import { describe, expect, it } from 'vitest';
import {
  ANCHOR,
  EXCERPT_CHARS,
  findLoop,
  LoopDetector,
  MAX_PERIOD,
  MIN_REPEATS,
} from '../../../src-main/engine/bench/loop-detector';
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
    const prose = varied(300_000).replaceAll('Sentence', 'Line');
    const text = `${prose}${passage.repeat(5)}`;
    let firedAt = -1;
    for (let i = 0; i < text.length && d.found === null; i += 1000) {
      if (d.push(text.slice(i, i + 1000))) firedAt = i + 1000;
    }
    expect(d.found).toMatchObject({ period: 30_000, repeats: 4 });
    // At the first check with four whole repeats, however often the kept text was trimmed before.
    expect(firedAt).toBe(Math.ceil((prose.length + 4 * 30_000) / 1000) * 1000);
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

  it('keeps a period of at most 400 characters whole as evidence', () => {
    const passage = varied(EXCERPT_CHARS);
    const found = findLoop(varied(3000) + passage.repeat(11));
    expect(found).toMatchObject({ period: EXCERPT_CHARS, excerpt: passage });
    const shorter = varied(300);
    expect(findLoop(varied(3000) + shorter.repeat(14))?.excerpt).toBe(shorter);
  });

  it('reports the shortest period at the end of the text and counts its whole repeats', () => {
    const passage = varied(1000);
    expect(findLoop(varied(2000) + passage.repeat(6))).toMatchObject({ period: 1000, repeats: 6 });
    // A text that is nothing but the loop counts every repeat.
    expect(findLoop(passage.repeat(5))).toMatchObject({ period: 1000, repeats: 5 });
  });

  it('does nothing for an empty piece and stops checking once a loop is found', () => {
    const d = new LoopDetector();
    expect(d.push('')).toBeNull();
    const passage = varied(500);
    d.push(varied(1000) + passage.repeat(10));
    const found = d.found;
    expect(found).toMatchObject({ period: 500 });
    // Later text, even another loop, leaves the first finding as it was.
    expect(d.push(varied(700).repeat(10))).toBe(found);
    expect(d.push('')).toBe(found);
  });

  it('checks only at each 256-character mark, however the text arrives', () => {
    const d = new LoopDetector();
    const passage = varied(500);
    const text = varied(1000) + passage.repeat(10);
    // Nine whole repeats (4,500 characters) are first there at 5,500 characters; the marks are 5,376 and 5,632.
    expect(d.push(text.slice(0, 5376))).toBeNull();
    expect(findLoop(text.slice(0, 5631))).toMatchObject({ period: 500, repeats: 9 });
    expect(d.push(text.slice(5376, 5631))).toBeNull();
    expect(d.push(text.slice(5631, 5632))).toMatchObject({ period: 500, repeats: 9 });
  });

  it('tries at most 64 candidate periods per check, so a pathological text cannot stall the client', () => {
    // A passage ending in a run of dashes: the last 64 characters (all dashes) recur at every
    // distance up to the run's length less 64 before the real period, and each of those fails.
    const looping = (dashes: number) => (varied(900) + '-'.repeat(dashes)).repeat(5);
    // 63 failing candidates: the 64th is the real period.
    expect(findLoop(looping(127))).toMatchObject({ period: 1027, repeats: 5 });
    // 64 failing candidates: the search stops before the real period.
    expect(findLoop(looping(128))).toBeNull();
  });

  it('needs the whole text to be at least 4096 characters, and a loop of exactly 4096 is one', () => {
    const passage = varied(1024);
    expect(findLoop(passage.repeat(4))).toMatchObject({ period: 1024, repeats: 4 });
    expect(findLoop(passage.repeat(4).slice(1))).toBeNull();
  });

  it('counts a text that is nothing but the loop from its first character when streamed', () => {
    const d = new LoopDetector();
    const text = varied(1024).repeat(5);
    let firedAt = -1;
    for (let i = 0; i < text.length && firedAt < 0; i += 256) if (d.push(text.slice(i, i + 256))) firedAt = i + 256;
    expect(firedAt).toBe(4096);
    expect(d.found).toMatchObject({ period: 1024, repeats: 4 });
  });

  it('is not a loop one character short of four whole repeats', () => {
    const passage = varied(1100);
    // The character before the first repeat's remainder differs from the one it would need.
    expect(findLoop(`${varied(3000)}#${passage.repeat(4).slice(1)}`)).toBeNull();
    expect(findLoop(varied(3000) + passage.repeat(4))).toMatchObject({ period: 1100, repeats: 4 });
  });

  it('finds a 32,768-character period completed just after both kept strings were trimmed: they keep four periods and the anchor', () => {
    // Letters from a fixed sequence: no 64-character window repeats by chance.
    let seed = 7;
    const letters = (n: number) => {
      let out = '';
      for (let k = 0; k < n; k++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        out += String.fromCharCode(97 + ((seed >> 16) % 26));
      }
      return out;
    };
    const period = 32_768;
    const loop = letters(period).repeat(4);
    // The first piece ends one character before a 256-character mark, more than twice the history long, so the check
    // there trims both strings; the loop is then 32 characters short of four repeats. The second piece of 32
    // characters reaches the next mark and completes it: the check finds it only if the trimmed history still holds
    // four periods and the searched window the anchor's copy one period back.
    const first = 300_031;
    expect(first % 256).toBe(255);
    const stream = `${letters(first + 32 - loop.length - 1)}0${loop}`;
    const d = new LoopDetector();
    expect(d.push(stream.slice(0, first))).toBeNull();
    expect(d.push(stream.slice(first))).toMatchObject({ period, repeats: 4 });
  });
  it('fires when streamed at the same mark and with the same finding as findLoop on the whole text so far', () => {
    // Streamed checks search the window in two parts (flat, and what came since); a copy of the anchor
    // may lie in either or across them. Periods from 1 to 6,000, pieces of 5 to 3,000 characters.
    const cases: Array<[string, number]> = [];
    for (const period of [1, 7, 63, 64, 65, 300, 1500, 2047, 2048, 2049, 6000])
      for (const piece of [5, 23, 256, 700, 3000]) {
        const body = period === 1 ? 'z' : varied(period);
        cases.push([`${varied(3000 + period * 3)}${body.repeat(Math.ceil(9000 / period) + 1)}`, piece]);
      }
    // No loop, but anchors that recur: a repeated passage one short of four repeats, and whitespace.
    cases.push([`${varied(2500)}#${varied(1100).repeat(4).slice(1)}${varied(500)}`, 37]);
    cases.push([`${varied(2500)}${' '.repeat(9000)}`, 101]);
    for (const [text, piece] of cases) {
      const d = new LoopDetector();
      let streamed: { at: number; found: unknown } | null = null;
      for (let i = 0; i < text.length && streamed === null; i += piece) {
        const found = d.push(text.slice(i, i + piece));
        if (found) streamed = { at: Math.min(text.length, i + piece), found };
      }
      // The reference: findLoop on the whole text at every mark the stream passed.
      let expected: { at: number; found: unknown } | null = null;
      let total = 0;
      let mark = 256;
      for (let i = 0; i < text.length && expected === null; i += piece) {
        total = Math.min(text.length, i + piece);
        if (total < mark) continue;
        mark = (Math.floor(total / 256) + 1) * 256;
        const found = findLoop(text.slice(0, total));
        if (found) expected = { at: total, found };
      }
      expect(streamed, `piece ${piece}, ${text.length} characters`).toEqual(expected);
    }
  });
  it('finds the one copy of the anchor in range wherever it lies: across the searched parts, or at the oldest start', () => {
    // Each first piece is longer than twice the searched window, so the check after it keeps the last 32,832
    // characters as the flat part; the second piece, the fresh part, completes four repeats. Two periods back is
    // out of range, so one copy alone makes the candidate.
    const prose = varied(10_000).replaceAll('Sentence', 'Line');
    const completed = (period: number, second: number) => {
      const stream = prose + varied(period).repeat(4);
      const d = new LoopDetector();
      expect(d.push(stream.slice(0, stream.length - second))).toBeNull();
      return d.push(stream.slice(stream.length - second));
    };
    // The copy starts 31 characters before the fresh part: it spans both parts.
    expect(completed(20_000, 20_032)).toMatchObject({ period: 20_000, repeats: 4 });
    // The copy starts at the oldest start searched (32,832 characters before the end).
    expect(completed(32_768, 1_000)).toMatchObject({ period: 32_768, repeats: 4 });
  });
  it('searches the history only at checks where the anchor recurs, and holds a bounded text however long the stream', () => {
    const keep = MIN_REPEATS * MAX_PERIOD + ANCHOR;
    const d = new LoopDetector();
    const prose = varied(700_000);
    let most = 0;
    for (let i = 0; i < prose.length; i += 300) {
      d.push(prose.slice(i, i + 300));
      most = Math.max(most, d.held);
    }
    // Varied prose never repeats a 64-character window: no check needed findLoop.
    expect(d.found).toBeNull();
    expect(d.searches).toBe(0);
    // Trimmed to the last KEEP characters once over twice that, and merged every 2,048 or so.
    expect(most).toBeGreaterThan(2 * keep);
    expect(most).toBeLessThanOrEqual(2 * keep + 2048 + 300);
    expect(d.held).toBeGreaterThanOrEqual(keep);
    // A loop after it is searched for, and found.
    const passage = varied(900);
    for (let i = 0; i < 12 && d.found === null; i++) d.push(passage);
    expect(d.found).toMatchObject({ period: 900 });
    expect(d.searches).toBeGreaterThan(0);
  });

  it('finds the same loop at the same check when the stream settles its pieces after each network chunk', () => {
    const text = varied(3000) + varied(700).repeat(9);
    const plain = new LoopDetector();
    const settled = new LoopDetector();
    let plainAt = -1;
    let settledAt = -1;
    for (let i = 0; i < text.length; i += 9) {
      const piece = text.slice(i, i + 9);
      if (plain.push(piece) && plainAt < 0) plainAt = i;
      if (settled.push(piece) && settledAt < 0) settledAt = i;
      if (i % 5 === 0) settled.settle();
    }
    expect(plain.found).toMatchObject({ period: 700 });
    expect(settled.found).toEqual(plain.found);
    expect(settledAt).toBe(plainAt);
  });
});
