/**
 * What each cell status means, in one table: whether it keeps a figure, whether a resumed run
 * counts it as done, its word, its colour family and its legend line. The plan, the engine, the
 * app and the reports all read it (docs/architecture.md, "One place per concept"). A new status
 * is one more row here (and one in the session schema's enum); the compiler asks for every field.
 *
 * Zod-free, apart from the schema, so the renderer can read it without bundling zod (the page only
 * needs the schema's types). schema.ts re-exports STATUS_WORDS for main.
 */
import type { CellStatus, Session } from './schema';

/**
 * The colour family a status is painted in. Each medium has its own palette for the families:
 * the report's SVG fills (statusColor in report/matrix-model.ts), the report's text colours
 * (src-main/workflows/report/style.ts) and the app's themed colours (src-renderer/src/styles.css).
 */
export type StatusTone = 'measured' | 'caution' | 'discarded' | 'failed' | 'not-run' | 'stopped';

export interface StatusMeaning {
  /** The word shown on screen and in reports, as in the reference report. */
  word: string;
  /** The cell keeps its figures and shows them (with the word beside them unless Valid). */
  hasFigure: boolean;
  /** Requests were sent. False for cells the plan left out: they carry no counts at all. */
  ran: boolean;
  /** A resumed run does not measure it again (the app's "cells left" agrees). */
  doneForResume: boolean;
  tone: StatusTone;
  /** In a legend when a cell has it, or never (Valid needs no explaining). */
  legend: 'when-present' | 'never';
  /** The legend's definition, after "Word: ". */
  meaning: string;
  /**
   * Whose definition `meaning` is: the reference tool's (llm-inference-bench, word for word) or
   * SpeedMatrix's own rule. An imported session keeps the source's definitions, so only the
   * reference's wording may be printed for another tool's data (docs/method.md).
   */
  definedBy: 'reference' | 'speedmatrix';
}

const TABLE = {
  valid: {
    word: 'Valid',
    hasFigure: true,
    ran: true,
    doneForResume: true,
    tone: 'measured',
    legend: 'never',
    definedBy: 'reference',
    meaning: 'measured, with none of the problems below.',
  },
  looped: {
    word: 'Looped',
    hasFigure: false,
    ran: true,
    doneForResume: true,
    tone: 'discarded',
    legend: 'when-present',
    definedBy: 'reference',
    meaning: 'the model kept repeating the same text, so the benchmark discarded this measurement.',
  },
  'over-capacity': {
    word: 'Over capacity',
    hasFigure: false,
    ran: false,
    doneForResume: true,
    tone: 'not-run',
    legend: 'when-present',
    definedBy: 'reference',
    meaning: "not run because this many requests at this context would exceed the server's KV cache.",
  },
  queued: {
    word: 'Requests queued',
    hasFigure: true,
    ran: true,
    doneForResume: true,
    tone: 'caution',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning:
      'measured, but the server could not run all the requests at once: on average fewer than 95% of them were active, requests were still waiting in two once-a-second checks in a row, or the start-up wait timed out. A request that waits one scheduler step after the previous one ends is not counted. The figure is kept.',
  },
  stalled: {
    word: 'Stream stalled',
    hasFigure: true,
    ran: true,
    doneForResume: true,
    tone: 'caution',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning:
      'measured, but one stream produced nothing for a while inside the window (over 20 times the median time between tokens, and at least 2 s), so the figure may be low; it is kept.',
  },
  'too-long': {
    word: 'Too long',
    hasFigure: false,
    ran: false,
    doneForResume: true,
    tone: 'not-run',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning: "not run because the context plus the output would exceed the model's maximum length.",
  },
  error: {
    word: 'Error',
    hasFigure: false,
    ran: true,
    doneForResume: true,
    tone: 'failed',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning:
      'no figure, because more than 10% of the requests in the window failed or the server went down; the notes below give the server’s message. Fewer failed requests keep the figure, with their count beside it, e.g. "1,234.5 (2 failed)".',
  },
  cancelled: {
    word: 'Cancelled',
    hasFigure: false,
    ran: true,
    // Stopped before it finished: a resume measures it.
    doneForResume: false,
    tone: 'stopped',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning: 'the run was stopped before this measurement finished.',
  },
  skipped: {
    word: 'Skipped',
    hasFigure: false,
    ran: false,
    doneForResume: true,
    tone: 'not-run',
    legend: 'when-present',
    definedBy: 'speedmatrix',
    meaning: 'left out of this run.',
  },
} as const satisfies Record<CellStatus, StatusMeaning>;

/** Every status, in legend order. */
export const STATUSES: Readonly<Record<CellStatus, StatusMeaning>> = TABLE;

/** The statuses a plan gives the cells it leaves out (those that never send a request). */
export type PlannedOutStatus = { [S in CellStatus]: (typeof TABLE)[S]['ran'] extends false ? S : never }[CellStatus];

/** Every status in legend order. */
export const STATUS_ORDER = Object.keys(STATUSES) as CellStatus[];

/** Words used on screen and in reports for each status. */
export const STATUS_WORDS = Object.fromEntries(STATUS_ORDER.map((s) => [s, STATUSES[s].word])) as Readonly<
  Record<CellStatus, string>
>;

export const hasFigure = (status: CellStatus): boolean => STATUSES[status].hasFigure;
export const isDoneForResume = (status: CellStatus): boolean => STATUSES[status].doneForResume;

/** Where a session's statuses were decided: here (null), or by the tool it was imported from. */
export type StatusSource = { importedFrom: string | null } | null;

/** The source of a session's statuses: null when measured here; the imported file's tool, when it names one. */
export function statusSourceOf(session: Session): StatusSource {
  if (session.origin.kind === 'measured') return null;
  const tool = session.runConfig.benchmarkTool;
  return { importedFrom: tool && tool !== 'unknown' ? tool : null };
}

/**
 * What a status means in a session: our definition for our own measurements; for imported data,
 * the reference's wording where it is the reference's, else no definition of ours (the source's
 * rule decided that status, not SpeedMatrix's).
 */
export function legendText(status: CellStatus, source: StatusSource = null): string {
  const s = STATUSES[status];
  if (source === null || s.definedBy === 'reference') return s.meaning;
  const tool = source.importedFrom ? ` (${source.importedFrom})` : '';
  return `as defined by the source tool${tool}; SpeedMatrix's own rule for this status was not applied.`;
}

/** The legend line of a status: "Looped: the model kept repeating …". */
export const legendLine = (status: CellStatus, source: StatusSource = null): string =>
  `${STATUSES[status].word}: ${legendText(status, source)}`;

/** The statuses a legend explains, in legend order: those that occur and need explaining, each once. */
export function legendStatuses(present: ReadonlySet<CellStatus>): CellStatus[] {
  return STATUS_ORDER.filter((s) => STATUSES[s].legend !== 'never' && present.has(s));
}

/** How many of a session's cells have each status. */
export function countByStatus(session: Session): Partial<Record<CellStatus, number>> {
  const counts: Partial<Record<CellStatus, number>> = {};
  for (const c of session.cells) counts[c.status] = (counts[c.status] ?? 0) + 1;
  return counts;
}
