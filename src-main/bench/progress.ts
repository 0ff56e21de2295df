/**
 * Showing a run's progress on a terminal: a one-line bar on a TTY (cell n/N, the current
 * cell, live tok/s, ETA), plain lines otherwise, or one JSON event per line.
 */
import { fmtContext, fmtDuration, fmtMs, fmtMsPrecise, fmtTokPerSec } from '../../src-shared/report/format';
import { STATUS_WORDS } from '../../src-shared/session/schema';
import { fmtCellThroughput } from '../../src-shared/report/confidence';
import { measurementsToRun } from './plan';
import type { BenchEvent } from './types';

export type ProgressMode = 'tty' | 'plain' | 'json';

export interface ProgressOutput {
  write(text: string): void;
  /** The terminal's width now (it can change while a run goes); 120 when unknown. */
  columns?(): number | undefined;
}

const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/**
 * The bar line in `width` columns: the cell count and the ETA are kept whole; the middle (the
 * current cell and its live figures) gives way first, cut in its middle so both ends still
 * read. A terminal too narrow for even that keeps the ETA and drops the bar.
 */
export function fitLine(head: string, middle: string, tail: string, width: number): string {
  const full = `${head}  ${middle}  ${tail}`;
  if (full.length <= width) return full;
  const room = width - head.length - tail.length - 4;
  if (room >= 5) {
    const keep = room - 1;
    const start = Math.ceil(keep / 2);
    return `${head}  ${middle.slice(0, start)}…${middle.slice(middle.length - (keep - start))}  ${tail}`;
  }
  const count = head.replace(/^\[[#.]*\]\s*/, '');
  const short = `${count}  ${tail}`;
  return short.length <= width ? short : tail.slice(0, Math.max(0, width));
}

const BAR = 24;

/** A BenchEvent as a JSON line: per-request arrays and the session body are left out (they are in the file). */
export function eventToJsonLine(e: BenchEvent): string {
  if (e.type === 'cell-done') return JSON.stringify({ ...e, cell: { ...e.cell, requests: undefined } });
  if (e.type === 'run-done') return JSON.stringify({ type: e.type, outcome: e.outcome, sessionFile: e.sessionFile, counts: e.counts, simulated: e.session.simulated });
  return JSON.stringify(e);
}

export class ProgressPrinter {
  private index = 0;
  private total = 0;
  private eta: number | null = null;
  /** When `eta` was last given (ms), so the bar counts down between events. */
  private etaAt = Date.now();
  private current = '';
  private live = '';
  private barShown = false;
  private lastDraw = 0;
  private stopRequested = false;

  constructor(
    private readonly mode: ProgressMode,
    private readonly out: ProgressOutput,
  ) {}

  handle(e: BenchEvent): void {
    if (this.mode === 'json') {
      if (e.type !== 'saved') this.out.write(`${eventToJsonLine(e)}\n`);
      return;
    }
    switch (e.type) {
      case 'plan':
        this.total = measurementsToRun(e.plan);
        this.index = e.alreadyDone;
        this.setEta(e.plan.etaSeconds);
        this.line(
          `Plan: ${plural(e.plan.counts.cells, 'cell')} (${e.plan.counts.toRun} to run${e.plan.config.repeat > 1 ? ` ${e.plan.config.repeat} times each` : ''}, ${e.plan.counts.overCapacity} over capacity, ${e.plan.counts.tooLong} too long, ${e.plan.counts.skipped} skipped), prefill at ${plural(e.plan.counts.prefill, 'context')}, about ${fmtDuration(e.plan.etaSeconds)}.`,
        );
        for (const w of e.plan.warnings) this.line(`  note: ${w}`);
        break;
      case 'cell-start':
        this.index = e.index;
        this.total = e.total;
        this.setEta(e.etaSeconds);
        this.current = `${fmtContext(e.context)} × ${e.concurrency}`;
        this.live = 'starting';
        this.draw(true);
        break;
      case 'phase':
        if (e.phase === 'warmup' || e.phase === 'calibration') {
          this.current = e.message;
          this.live = '';
          this.draw(true);
        } else if (this.mode === 'tty') {
          this.live = e.phase === 'window' ? 'measuring' : e.phase === 'readiness' ? 'ramping up' : e.phase === 'cooldown' ? (this.stopRequested ? 'cancelling' : 'finishing') : 'waiting for idle';
          this.draw(false);
        }
        break;
      case 'sample':
        this.live = `${e.stage === 'window' ? 'measuring' : 'ramping up'}  ${fmtTokPerSec(e.tokensPerSecond)} tok/s  ${Math.round(e.activeRequests)} active`;
        this.draw(false);
        break;
      case 'cell-done': {
        const c = e.cell;
        this.setEta(e.etaSeconds);
        const figures =
          c.totalTokensPerSecond !== null
            ? `  ${fmtCellThroughput(c)} tok/s  TTFT ${fmtMs(c.ttft?.p50)}  between tokens ${fmtMsPrecise(c.timeBetweenTokens?.p50)}`
            : '';
        const rep = e.repetition && e.repetition > 1 ? ` (repetition ${e.repetition})` : '';
        this.line(`cell ${e.index}/${e.total}  ${fmtContext(c.context)} × ${c.concurrency}${rep}  ${STATUS_WORDS[c.status]}${figures}${c.reason && c.status !== 'valid' ? `  (${c.reason})` : ''}`);
        break;
      }
      case 'prefill-start':
        this.current = `prefill ${fmtContext(e.context)}${scoutTimes(e.expectedSeconds, e.deadlineSeconds)}`;
        this.live = '';
        this.draw(true);
        break;
      case 'prefill-done': {
        const p = e.result;
        this.line(
          p.status === 'valid'
            ? `prefill ${fmtContext(p.context)}  ${fmtTokPerSec(p.tokensPerSecond)} tok/s  TTFT ${fmtMs(p.ttftSeconds)}  (${p.promptTokens} prompt tokens)`
            : `prefill ${fmtContext(p.context)}  ${STATUS_WORDS[p.status]}${p.reason ? `  (${p.reason})` : ''}`,
        );
        break;
      }
      case 'log':
        if (e.level !== 'info') this.line(`${e.level === 'warn' ? 'warning' : 'error'}: ${e.message}`);
        break;
      case 'error':
        this.line(`error: ${e.message}`);
        break;
      case 'server-down':
        this.line(`server down: ${e.message}`);
        break;
      case 'run-done':
        this.clearBar();
        break;
      default:
        break;
    }
  }

  /** The person asked to stop: the cell in progress is being cancelled, not finished. */
  stopping(): void {
    this.stopRequested = true;
    this.live = 'cancelling';
    this.draw(true);
  }

  private setEta(seconds: number): void {
    this.eta = seconds;
    this.etaAt = Date.now();
  }

  private etaNow(): number | null {
    return this.eta === null ? null : Math.max(0, this.eta - (Date.now() - this.etaAt) / 1000);
  }

  /** A permanent line (clears the bar first on a TTY). */
  line(text: string): void {
    this.clearBar();
    this.out.write(`${text}\n`);
  }

  private clearBar(): void {
    if (this.mode === 'tty' && this.barShown) {
      this.out.write('\r\x1b[2K');
      this.barShown = false;
    }
  }

  private draw(force: boolean): void {
    if (this.mode !== 'tty') {
      if (force && this.current) this.out.write(`... ${this.current}${this.total ? `  (cell ${Math.min(this.index, this.total)}/${this.total}, ETA ${fmtDuration(this.etaNow())})` : ''}\n`);
      return;
    }
    const now = Date.now();
    if (!force && now - this.lastDraw < 200) return;
    this.lastDraw = now;
    const done = this.total ? Math.max(0, this.index - 1) / this.total : 0;
    const filled = Math.round(done * BAR);
    const bar = `[${'#'.repeat(filled)}${'.'.repeat(BAR - filled)}]`;
    const head = `${bar} cell ${Math.min(this.index, this.total)}/${this.total}`;
    const text = fitLine(head, `${this.current}  ${this.live}`, `ETA ${fmtDuration(this.etaNow())}`, (this.out.columns?.() ?? 120) - 1);
    this.out.write(`\r\x1b[2K${text}`);
    this.barShown = true;
  }
}

/** "  (expected about 7 min 00 s, gives up after 14 min 00 s)" for a scout; empty when nothing is known. */
function scoutTimes(expected: number | null | undefined, deadline: number | undefined): string {
  if (deadline === undefined) return '';
  const about = expected !== null && expected !== undefined ? `expected about ${fmtDuration(expected)}, ` : '';
  return `  (${about}gives up after ${fmtDuration(deadline)})`;
}
