/** Run: the form, the plan preview, and the live run as main reports it (merged updates). */
import { cellKey } from '#shared/cell-key';
import type { LiveCell, PlanView, RunProgress, RunUpdate } from '#shared/ipc/contract';
import type { RunPhase } from '#shared/run-progress';
import type { RunForm } from '#shared/ipc/forms';
import { lengthText } from '#shared/report/load-model';
import type { Session } from '#shared/session/schema';
import { isDoneForResume } from '#shared/session/status-words';
import { foldRunCells, type HeldSession } from './session-slice';
import type { SliceCreator } from './slice-creator';

interface RunPreset {
  id: string;
  label: string;
  contexts: number[];
  /** Empty: automatic (RunForm.concurrency). */
  concurrency: number[];
}

const K = 1024;
export const RUN_PRESETS: RunPreset[] = [
  // The default leaves requests at once to the plan, as the CLI does: 256 and 512 only where the server has room.
  {
    id: 'seed',
    label: 'Seed matrix: 8K–251K × automatic requests at once',
    contexts: [8 * K, 16 * K, 32 * K, 64 * K, 128 * K, 251 * K],
    concurrency: [],
  },
  { id: 'quick', label: 'Quick: 8K–32K × 1–8', contexts: [8 * K, 16 * K, 32 * K], concurrency: [1, 2, 4, 8] },
  {
    id: 'long',
    label: 'Long context: 64K–251K × 1–8',
    contexts: [64 * K, 128 * K, 251 * K],
    concurrency: [1, 2, 4, 8],
  },
];

const DEFAULT_RUN_FORM: RunForm = {
  contexts: RUN_PRESETS[0].contexts,
  concurrency: RUN_PRESETS[0].concurrency,
  prefillContexts: [],
  secondsPerMeasurement: 30,
  maxOutputTokens: 4096,
  tokenTargeting: 'exact',
  repeat: 1,
  precisionPercent: null,
  minSecondsPerMeasurement: 5,
  outputLen: '',
  sharedPrefix: 0,
};

export interface RunSlice {
  runForm: RunForm;
  plan: PlanView | null;
  planError: string | null;
  planLoading: boolean;
  runPhase: RunPhase;
  live: LiveCell | null;
  progress: RunProgress | null;
  runMessage: string | null;
  runError: string | null;
  /** A run on a remote host: where, and why its link is lost (null while followed); null for a run here. */
  runRemote: RunUpdate['remote'];
  /** The run and update last applied: older ones (a late invoke reply) are dropped. */
  runId: number;
  runSeq: number;
  updateRunForm(patch: Partial<RunForm>): void;
  addChip(field: 'contexts' | 'concurrency', value: number): void;
  removeChip(field: 'contexts' | 'concurrency', value: number): void;
  applyPreset(id: string): void;
  /** Prefill contexts: removing or adding one makes the list the person's own (empty: the decode contexts). */
  setPrefillChips(values: number[] | null): void;
  setPlan(plan: PlanView | null, error: string | null): void;
  setPlanLoading(): void;
  applyRunUpdate(u: RunUpdate): void;
  /** Several updates in order, as one store change (one render): the bridge batches per frame. */
  applyRunUpdates(us: RunUpdate[]): void;
  setRunError(message: string | null): void;
}

type RunState = Pick<
  RunSlice,
  'runPhase' | 'plan' | 'live' | 'progress' | 'runMessage' | 'runError' | 'runRemote' | 'runId' | 'runSeq'
>;

/** One update onto the run state, unless older than one applied (a late invoke reply). */
function foldRunUpdate(s: RunState, u: RunUpdate): RunState {
  if (u.run < s.runId || (u.run === s.runId && u.seq < s.runSeq)) return s;
  const starting = u.run !== s.runId;
  const running = u.phase === 'starting' || u.phase === 'prefill' || u.phase === 'decode';
  return {
    runPhase: u.phase,
    plan: u.plan ?? s.plan,
    live: running ? (u.live ?? s.live) : null,
    // A new run (a resume too) counts from its own plan: the last run's count and clock are not its.
    progress: u.progress ?? (starting ? null : s.progress),
    runMessage: u.message ?? (starting ? null : s.runMessage),
    runError: u.phase === 'failed' ? (u.message ?? 'The run failed.') : starting ? null : s.runError,
    runRemote: u.remote ?? null,
    runId: u.run,
    runSeq: u.seq,
  };
}

const sameList = (a: number[], b: number[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** Whether two plans measure the same cells and prefill points. */
function sameMatrix(a: PlanView | null, b: PlanView | null): boolean {
  if (!a || !b) return false;
  return (
    sameList(a.contexts, b.contexts) &&
    sameList(a.concurrency, b.concurrency) &&
    sameList(a.prefillContexts, b.prefillContexts)
  );
}

const sortedUnique = (xs: number[]): number[] => [...new Set(xs)].sort((a, b) => a - b);

export const createRunSlice: SliceCreator<RunSlice, RunSlice & HeldSession> = (set) => ({
  runForm: DEFAULT_RUN_FORM,
  plan: null,
  planError: null,
  planLoading: false,
  runPhase: 'idle',
  live: null,
  progress: null,
  runMessage: null,
  runError: null,
  runRemote: null,
  runId: 0,
  runSeq: 0,
  updateRunForm: (patch) => set((s) => ({ runForm: { ...s.runForm, ...patch } })),
  addChip: (field, value) =>
    set((s) => ({ runForm: { ...s.runForm, [field]: sortedUnique([...s.runForm[field], value]) } })),
  removeChip: (field, value) =>
    set((s) => ({ runForm: { ...s.runForm, [field]: s.runForm[field].filter((v) => v !== value) } })),
  applyPreset: (id) =>
    set((s) => {
      const p = RUN_PRESETS.find((x) => x.id === id);
      return p ? { runForm: { ...s.runForm, contexts: p.contexts, concurrency: p.concurrency } } : {};
    }),
  setPrefillChips: (values) =>
    set((s) => ({ runForm: { ...s.runForm, prefillContexts: values === null ? [] : sortedUnique(values) } })),
  // The bar counts the run's plan: another matrix planned after the run is not that run's (isRunning keeps it meanwhile).
  setPlan: (plan, planError) =>
    set((s) => ({
      plan,
      planError,
      planLoading: false,
      progress: isRunning(s.runPhase) || sameMatrix(s.plan, plan) ? s.progress : null,
    })),
  setPlanLoading: () => set({ planLoading: true }),
  applyRunUpdate: (u) => set((s) => foldUpdates(s, [u])),
  applyRunUpdates: (us) => set((s) => foldUpdates(s, us)),
  setRunError: (runError) => set({ runError }),
});

/** Updates in order: run state, and their cells and prefill points into the session (their revisions order them). */
function foldUpdates(s: RunState & HeldSession, us: RunUpdate[]): RunState & HeldSession {
  let next: RunState & HeldSession = s;
  for (const u of us) next = foldRunCells({ ...next, ...foldRunUpdate(next, u) }, u);
  return next;
}

/** The session when it is this run's or a newer one's (a resume's, adopted before its reply): the Run view draws it. */
export const runSession = (s: Pick<RunSlice, 'runId'> & HeldSession): Session | null =>
  s.session && s.sessionRun !== null && s.sessionRun >= s.runId ? s.session : null;

/** The form a session's run was made with: what a reload or a resume shows. */
export function formFromRunConfig(rc: Session['runConfig']): RunForm {
  const samePrefill =
    rc.prefillContexts.length === rc.contexts.filter((c) => c > 0).length &&
    rc.prefillContexts.every((c) => rc.contexts.includes(c));
  return {
    contexts: rc.contexts,
    concurrency: rc.concurrency,
    prefillContexts: samePrefill ? [] : rc.prefillContexts,
    secondsPerMeasurement: rc.secondsPerMeasurement,
    maxOutputTokens: rc.maxOutputTokens,
    tokenTargeting: rc.tokenTargeting,
    repeat: rc.repeat,
    precisionPercent: rc.precision ? rc.precision * 100 : null,
    minSecondsPerMeasurement: rc.minSecondsPerMeasurement ?? DEFAULT_RUN_FORM.minSecondsPerMeasurement,
    outputLen: rc.outputLength ? lengthText(rc.outputLength) : '',
    sharedPrefix: rc.sharedPrefixTokens ?? 0,
  };
}

/** Planned cells a session's run has not measured yet (never run, or not done for resume): what Resume would measure. */
export function cellsLeft(session: Session | null): number {
  if (!session) return 0;
  const rc = session.runConfig;
  const measured = new Set(session.cells.filter((c) => isDoneForResume(c.status)).map(cellKey));
  let left = 0;
  for (const context of rc.contexts)
    for (const concurrency of rc.concurrency) if (!measured.has(cellKey({ context, concurrency }))) left++;
  return left;
}

export const isRunning = (phase: RunPhase): boolean =>
  phase === 'starting' || phase === 'prefill' || phase === 'decode';
