/**
 * The one-line progress bar on a terminal: it fits the terminal's width with the cell count
 * and the ETA whole, says "finishing" at a cell's normal end and "cancelling" only after a
 * stop, and counts in words that agree with the number.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { planRun } from '../../../src-main/engine/bench/plan';
import { fitLine, ProgressPrinter } from '../../../src-main/engine/bench/progress';
import type { BenchEvent } from '../../../src-main/engine/bench/types';

const kv = { tokens: 1_000_000, source: 'user' as const, detail: null, maxConcurrency: null, tokensPerRequest: null };
const stripAnsi = (s: string) => s.replace(/\r\x1b\[2K/g, '\n'); // eslint-disable-line no-control-regex

function tty(columns: number, events: BenchEvent[], stop = false): string[] {
  let out = '';
  const p = new ProgressPrinter('tty', { write: (t) => (out += t), columns: () => columns });
  // The bar redraws at most every 200 ms: events here come half a second apart.
  for (const e of events) {
    vi.advanceTimersByTime(500);
    p.handle(e);
  }
  if (stop) p.stopping();
  return stripAnsi(out).split('\n').filter(Boolean);
}

// Built inside each test, so a mutation run knows which tests cover the plan.
const planned = (): Extract<BenchEvent, { type: 'plan' }> => ({
  type: 'plan',
  plan: planRun(
    { contexts: [8192, 32768], concurrency: [1, 4, 16], prefillContexts: [] },
    { maxModelLen: 65536, kvBudget: kv },
  ),
  alreadyDone: 0,
  doneCells: [],
  donePrefill: [],
});
const start: BenchEvent = { type: 'cell-start', context: 32768, concurrency: 16, index: 2, total: 6, etaSeconds: 754 };
const sample: BenchEvent = {
  type: 'sample',
  context: 32768,
  concurrency: 16,
  stage: 'window',
  tokensPerSecond: 2412.5,
  activeRequests: 16,
  waitingRequests: 0,
  tokens: 100,
  elapsedSeconds: 1,
};

describe('the progress bar line', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('120 columns: the bar, the cell, live figures and the ETA', () => {
    const last = tty(120, [planned(), start, sample]).pop()!;
    expect(last).toMatch(
      /^\[####\.+\] cell 2\/6  32K × 16  measuring  2,412\.5 tok\/s  16 active  \d+ s elapsed  ETA (\d+ min )?\d+ s$/,
    );
  });

  it('60 columns: the bar goes, then whole fields, the least useful first; no number is cut', () => {
    const last = tty(60, [planned(), start, sample]).pop()!;
    expect(last.length).toBeLessThanOrEqual(59);
    expect(last).toMatch(/^cell 2\/6  32K × 16  measuring  2,412\.5 tok\/s  (\d+ s elapsed, )?ETA (\d+ min )?\d+ s$/);
    const narrower = tty(48, [planned(), start, sample]).pop()!;
    expect(narrower).toMatch(/^cell 2\/6  32K × 16  2,412\.5 tok\/s  (\d+ s elapsed, )?ETA (\d+ min )?\d+ s$/);
  });

  it('the ETA counts down while a cell is measured', () => {
    const slow = planRun(
      { contexts: [8192], concurrency: [1, 2], prefillContexts: [], secondsPerMeasurement: 120 },
      { maxModelLen: 65536, kvBudget: kv },
    );
    const first: BenchEvent = { type: 'cell-start', context: 8192, concurrency: 1, index: 1, total: 2, etaSeconds: 0 };
    const at = { ...sample, context: 8192, concurrency: 1 };
    const etas = tty(120, [{ ...planned(), plan: slow }, first, at, at, at, at, at, at])
      .filter((l) => l.startsWith('['))
      .map((l) => /ETA (.*)$/.exec(l)![1]);
    // Half a second between events: three seconds of measuring show three seconds less.
    expect(new Set(etas).size).toBeGreaterThanOrEqual(3);
    expect(etas.at(-1)).not.toBe(etas[1]);
  });

  it('very narrow: the cell count and the ETA, then the ETA alone', () => {
    const middle = [{ text: 'a long middle part', keep: 0 }];
    expect(fitLine('[##..]', 'cell 2/6', middle, 'ETA 1 min 5 s', 26)).toBe('cell 2/6  ETA 1 min 5 s');
    expect(fitLine('[##..]', 'cell 2/6', middle, 'ETA 1 min 5 s', 14)).toBe('ETA 1 min 5 s');
  });

  it('the normal end of a cell reads "finishing"; after a stop it reads "cancelling"', () => {
    const cooldown: BenchEvent = {
      type: 'phase',
      phase: 'cooldown',
      message: 'cooldown',
      context: 32768,
      concurrency: 16,
    };
    expect(tty(120, [start, cooldown]).pop()).toMatch(/ finishing  ETA/);
    expect(tty(120, [start, cooldown], true).pop()).toMatch(/ cancelling  ETA/);
  });

  it('the ramp says what it waits for and how long: streams started of C, then the server holding them', () => {
    const ramp = (streamsStarted: number, elapsedSeconds: number, activeRequests = 10): BenchEvent => ({
      ...sample,
      stage: 'ramp',
      activeRequests,
      waitingRequests: 2,
      elapsedSeconds,
      streamsStarted,
    });
    expect(tty(160, [planned(), start, ramp(10, 45)]).pop()).toMatch(
      /32K × 16  waiting for 16 streams to start: 10 of 16 after 45 s  /,
    );
    expect(tty(160, [planned(), start, ramp(16, 50, 14)]).pop()).toMatch(
      /32K × 16  waiting for 16 streams to run steadily: 14 running, 2 waiting after 50 s  /,
    );
  });

  it('sizing a prompt does not stay the label of the cell once its ramp is under way', () => {
    const sizing: BenchEvent = {
      type: 'phase',
      phase: 'calibration',
      message: 'sizing the short prompt (context 0)',
      context: 0,
    };
    const readiness: BenchEvent = {
      type: 'phase',
      phase: 'readiness',
      message: 'waiting for 16 streams to be steady',
      context: 32768,
      concurrency: 16,
    };
    const lines = tty(160, [planned(), start, sizing, readiness]);
    expect(lines.at(-2)).toMatch(/sizing the short prompt \(context 0\)/);
    expect(lines.at(-1)).toMatch(/cell 2\/6  32K × 16  ramping up  /);
    expect(lines.at(-1)).not.toMatch(/sizing/);
  });

  it('plain output: a ramp that lasts says every 30 s what it waits for', () => {
    let out = '';
    const p = new ProgressPrinter('plain', { write: (t) => (out += t) });
    p.handle(planned());
    p.handle(start);
    for (const t of [5, 31, 45, 62]) {
      vi.advanceTimersByTime(15_000);
      p.handle({ ...sample, stage: 'ramp', elapsedSeconds: t, streamsStarted: 10 });
    }
    const waits = out.split('\n').filter((l) => l.includes('waiting for'));
    expect(waits).toEqual([
      '... 32K × 16: waiting for 16 streams to start: 10 of 16 after 31 s',
      '... 32K × 16: waiting for 16 streams to start: 10 of 16 after 1 min 02 s',
    ]);
  });

  it('one cell: a singular word', () => {
    const one = planRun(
      { contexts: [8192], concurrency: [1], prefillContexts: [8192] },
      { maxModelLen: 32768, kvBudget: kv },
    );
    expect(tty(120, [{ type: 'plan', plan: one, alreadyDone: 0, doneCells: [], donePrefill: [] }])[0]).toMatch(
      /^Plan: 1 cell \(1 to run, /,
    );
  });
});
