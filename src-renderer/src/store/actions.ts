/**
 * Everything the renderer asks of main goes through these actions: they call the bridge and
 * put the answer (or its error, in words) into the store. Components never call the bridge.
 */
import type { CellSamples, ComparisonView, Invoked, MenuCommand, RunUpdate } from '#shared/ipc/contract';
import type { CellRef, ComparisonFormat, ExportFormat, RunForm, ServerForm } from '#shared/ipc/forms';
import type { Result } from '#shared/result';
import { bridgeOrThrow } from '../bridge';
import { appStore } from './index';
import { flushRunUpdates } from './run-queue';
import { formFromRunConfig } from './run-slice';
import type { AxisInput } from '#shared/sweep/variants';
import { sweepBusy } from './sweep-slice';
import { loadBusy } from './load-slice';
import { reportViewOf } from './report-view-slice';

const st = () => appStore.getState();

/** An invoke's run update, after any queued live events (they are older). */
function applyRunUpdateNow(u: RunUpdate): void {
  flushRunUpdates();
  st().applyRunUpdate(u);
}

async function call<T>(p: Promise<Invoked<T>>): Promise<Invoked<T>> {
  try {
    return await p;
  } catch (e) {
    return { ok: false, error: (e as Error).message || String(e) };
  }
}

/** First load: everything main knows, then mark the app ready. */
export async function boot(): Promise<void> {
  const b = bridgeOrThrow();
  const info = await call(b.getAppInfo());
  if (!info.ok) {
    st().setAppError(info.error);
    return;
  }
  const [defaults, snapshot, log, run, recent, sweep, load] = await Promise.all([
    call(b.getServerDefaults()),
    call(b.getServerSnapshot()),
    call(b.getServerLog()),
    call(b.getRunSnapshot()),
    call(b.getRecentFiles()),
    call(b.getSweepSnapshot()),
    call(b.getLoadSnapshot()),
  ]);
  if (defaults.ok) st().setServerDefaults(defaults.data);
  if (snapshot.ok) st().setServerSnapshot(snapshot.data);
  if (log.ok) st().replaceServerLog(log.data);
  if (run.ok) applyRunUpdateNow(run.data);
  if (recent.ok) st().setRecentFiles(recent.data);
  if (sweep.ok) st().setSweepView(sweep.data);
  // A reload while a load run goes shows the Load mode it runs in.
  if (load.ok) {
    st().setLoadView(load.data);
    if (loadBusy(load.data)) st().setRunMode('load');
  }
  await refreshSession();
  // A reload during or after a run (or a sweep's) shows that run's matrix in the form, not the default one.
  const session = st().session;
  const measuring = (run.ok && run.data.plan) || (sweep.ok && sweepBusy(sweep.data));
  if (measuring && session) st().updateRunForm(formFromRunConfig(session.runConfig));
  st().setAppInfo(info.data);
  void detectHardware();
  void refreshPreview();
  void findLeftoverServers();
  void restoreComparison();
}

/** After a reload, the comparison main still holds is one click away ("Back to the comparison"). */
async function restoreComparison(): Promise<void> {
  const r = await call(bridgeOrThrow().getComparison());
  if (r.ok && r.data) st().setComparison(r.data, false);
}

/** Servers an earlier SpeedMatrix launched and was killed before stopping: the Server view asks about them. */
async function findLeftoverServers(): Promise<void> {
  const r = await call(bridgeOrThrow().findLeftoverServers());
  if (r.ok && r.data.length)
    st().setOrphans([...r.data, ...st().orphans.filter((o) => !r.data.some((l) => l.pid === o.pid))]);
}

export async function detectHardware(): Promise<void> {
  st().setHardwareLoading();
  const r = await call(bridgeOrThrow().detectHardware());
  if (r.ok) st().setHardware(r.data);
  else st().setHardwareError(r.error);
}

/** The Server view's remote host's hardware, detected there by its own speedmatrix over ssh. */
export async function detectRemoteHardware(): Promise<void> {
  const form = st().serverForm;
  const host = form?.sshHost.trim();
  if (!form || form.where !== 'ssh' || !host) return;
  st().setRemoteHardwareLoading(host);
  const options = form.sshOptions
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  const r = await call(bridgeOrThrow().detectRemoteHardware({ host, options }));
  if (r.ok) st().setRemoteHardware(r.data);
  else st().setRemoteHardwareError(host, r.error);
}

/** The whole session view, when the page lacks a change run updates do not carry; false when it could not. */
export async function refreshSession(): Promise<boolean> {
  const r = await call(bridgeOrThrow().getSession());
  if (r.ok) st().setSessionView(r.data);
  return r.ok;
}

/** One cell's per-request samples, fetched when its detail opens (the session view has none). */
export async function fetchCellRequests(cell: CellRef): Promise<Result<CellSamples | null>> {
  return call(bridgeOrThrow().getCellRequests({ context: cell.context, concurrency: cell.concurrency }));
}

export async function refreshRecent(): Promise<void> {
  const r = await call(bridgeOrThrow().getRecentFiles());
  if (r.ok) st().setRecentFiles(r.data);
}

// ----- server -----

let previewSeq = 0;
export async function refreshPreview(): Promise<void> {
  const form = st().serverForm;
  if (!form) return;
  const seq = ++previewSeq;
  const r = await call(bridgeOrThrow().previewServer(form));
  if (seq !== previewSeq) return; // a newer edit already asked: this reply describes an older form
  if (r.ok) st().setPreview(r.data, null);
  else st().setPreview(null, r.error);
}

export function updateServerForm(patch: Partial<ServerForm>): void {
  st().updateServerForm(patch);
  void refreshPreview();
  void refreshSweepPlan();
}

export async function startServer(): Promise<void> {
  const form = st().serverForm;
  if (!form) return;
  st().setServerError(null);
  const r = await call(bridgeOrThrow().startServer(form));
  if (r.ok) st().setServerSnapshot(r.data);
  else st().setServerError(r.error);
}

export async function stopServer(): Promise<void> {
  const r = await call(bridgeOrThrow().stopServer());
  if (r.ok) st().setServerSnapshot(r.data);
  else st().setServerError(r.error);
}

/** "End them": end the processes a crashed server left running, and say what was ended. */
export async function endOrphans(): Promise<void> {
  const pids = st().orphans.map((o) => o.pid);
  st().setOrphanOutcome(null, true);
  const r = await call(bridgeOrThrow().endOrphans(pids));
  if (!r.ok) return st().setOrphanOutcome({ ok: false, message: `Could not end them: ${r.error}` });
  const ended = r.data.map((o) => `pid ${o.pid}`).join(', ');
  const left = st().orphans.filter((o) => !r.data.some((e) => e.pid === o.pid));
  st().setOrphans(left);
  st().setOrphanOutcome({
    ok: left.length === 0,
    message: `Ended ${r.data.length} process(es)${ended ? `: ${ended}` : ''}.${left.length ? ` Still running: ${left.map((o) => `pid ${o.pid}`).join(', ')}.` : ''}`,
  });
}

/** "Leave them": close the question; they are ended when the server is stopped or SpeedMatrix quits. */
export function leaveOrphans(): void {
  const n = st().orphans.length;
  st().setOrphans([]);
  st().setOrphanOutcome({ ok: true, message: `Left ${n} process(es) running. SpeedMatrix ends them when it quits.` });
}

// ----- run -----

let planSeq = 0;
export async function refreshPlan(form: RunForm = st().runForm): Promise<void> {
  // No requests at once is automatic (the plan's default levels); no context has no default in the form.
  if (form.contexts.length === 0) {
    st().setPlan(null, 'Add at least one context.');
    return;
  }
  const seq = ++planSeq;
  st().setPlanLoading();
  const r = await call(bridgeOrThrow().planRun(form));
  if (seq !== planSeq) return; // a newer edit already asked
  if (r.ok) st().setPlan(r.data, null);
  else st().setPlan(null, r.error);
}

export async function startRun(): Promise<void> {
  if (!confirmDiscard('Start a new run anyway?')) return;
  st().setRunError(null);
  const r = await call(bridgeOrThrow().startRun(st().runForm));
  if (r.ok) applyRunUpdateNow(r.data);
  else st().setRunError(r.error);
}

export async function stopRun(): Promise<void> {
  const r = await call(bridgeOrThrow().stopRun());
  if (r.ok) applyRunUpdateNow(r.data);
  else st().setRunError(r.error);
}

/** Follow the run on the remote host again after its link was lost. */
export async function reattachRun(): Promise<void> {
  st().setRunError(null);
  const r = await call(bridgeOrThrow().reattachRun());
  if (r.ok) applyRunUpdateNow(r.data);
  else st().setRunError(r.error);
}

export async function resumeRun(): Promise<void> {
  st().setRunError(null);
  const session = st().session;
  const r = await call(bridgeOrThrow().resumeRun(st().sessionMeta.file ?? undefined));
  if (r.ok) {
    // The resumed run keeps its own matrix: the form shows it.
    if (session) st().updateRunForm(formFromRunConfig(session.runConfig));
    applyRunUpdateNow(r.data);
  } else st().setRunError(r.error);
}

// ----- load -----

/** A load run (the Run view's Load mode) against the ready server; its session opens when it ends. */
export async function startLoad(): Promise<void> {
  if (!confirmDiscard('Start a load run anyway?')) return;
  st().setLoadError(null);
  const r = await call(bridgeOrThrow().startLoad(st().loadForm));
  if (r.ok) st().setLoadView(r.data);
  else st().setLoadError(r.error);
}

/** The trace dialog: main reads the file at once and says what it holds, or why it cannot be replayed. */
export async function chooseTrace(): Promise<void> {
  const r = await call(bridgeOrThrow().chooseTrace());
  if (r.ok) {
    st().setLoadTrace(r.data);
    st().setLoadError(null);
  } else if (r.code !== 'cancelled') st().setLoadError(r.error);
}

export async function stopLoad(): Promise<void> {
  const r = await call(bridgeOrThrow().stopLoad());
  if (r.ok) st().setLoadView(r.data);
  else st().setLoadError(r.error);
}

// ----- sweep -----

let sweepPlanSeq = 0;
/** Main checks the varied settings against the launch form and plans the sweep over the Run view's matrix. */
export async function refreshSweepPlan(): Promise<void> {
  const { serverForm, sweepAxes, runForm } = st();
  if (!serverForm || sweepAxes.length === 0) return st().setSweepPlan(null);
  const seq = ++sweepPlanSeq;
  const r = await call(bridgeOrThrow().planSweep(serverForm, sweepAxes, runForm));
  if (seq !== sweepPlanSeq) return; // a newer edit already asked
  if (r.ok) st().setSweepPlan(r.data);
  else st().setSweepPlan({ problems: [], blocked: r.error, variants: [], plan: null, line: null });
}

export function updateSweepAxes(axes: AxisInput[]): void {
  st().setSweepAxes(axes);
  void refreshSweepPlan();
}

export async function chooseSweepDir(): Promise<void> {
  const r = await call(bridgeOrThrow().chooseSweepDir());
  if (r.ok) {
    st().setSweepDir(r.data);
    st().setSweepError(null);
  } else if (r.code !== 'cancelled') st().setSweepError(r.error);
}

export async function startSweep(): Promise<void> {
  const { serverForm, sweepAxes, runForm, sweepDir } = st();
  if (!serverForm) return;
  if (!confirmDiscard('Start a sweep anyway?')) return;
  st().setSweepError(null);
  const r = await call(
    bridgeOrThrow().startSweep({ server: serverForm, axes: sweepAxes, run: runForm, dir: sweepDir }),
  );
  if (r.ok) st().setSweepView(r.data);
  else st().setSweepError(r.error);
}

export async function stopSweep(): Promise<void> {
  const r = await call(bridgeOrThrow().stopSweep());
  if (r.ok) st().setSweepView(r.data);
  else st().setSweepError(r.error);
}

/** Finish the stopped sweep in the folder shown (or the last one); a key its command had comes from the Server view. */
export async function resumeSweep(): Promise<void> {
  if (!confirmDiscard('Resume the sweep anyway?')) return;
  st().setSweepError(null);
  const { sweepDir, serverForm } = st();
  const r = await call(bridgeOrThrow().resumeSweep(sweepDir || undefined, serverForm?.apiKey || undefined));
  if (r.ok) st().setSweepView(r.data);
  else st().setSweepError(r.error);
}

// ----- files -----

/** Unsaved results are never dropped silently: a new run or another file asks first. */
function confirmDiscard(action: string): boolean {
  const meta = st().sessionMeta;
  if (!meta.hasSession || !meta.dirty) return true;
  return window.confirm(`The open results are not saved. ${action} (Cancel, then Save, to keep them.)`);
}

async function afterOpen(r: Invoked<unknown>, name: string): Promise<void> {
  // A file opened (or refused) is what Results shows next, in front of any comparison.
  st().setShowComparison(false);
  if (r.ok) {
    st().setOpenError(null);
    st().selectCell(null);
    // The session itself comes as for any replacement: its session:meta makes the page fetch it (wire.ts).
    await refreshRecent();
    st().setView('results');
  } else {
    st().setOpenError({ level: 'error', message: r.error || `Could not open ${name}.` });
    st().setView('results');
  }
}

export async function openSession(path?: string): Promise<void> {
  if (!confirmDiscard('Open another file anyway?')) return;
  const r = await call(bridgeOrThrow().openSession(path));
  if (!r.ok && r.code === 'cancelled') return;
  await afterOpen(r, path ?? 'the file');
}

/** A dropped or picked file: its text travels to main, which validates it like any file. */
export async function openSessionFile(file: File): Promise<void> {
  if (!confirmDiscard(`Open ${file.name} anyway?`)) return;
  const path = await bridgeOrThrow().pathForFile?.(file);
  if (path) {
    await afterOpen(await call(bridgeOrThrow().openSession(path)), file.name);
    return;
  }
  let bytes: ArrayBuffer;
  try {
    bytes = await file.arrayBuffer();
  } catch (e) {
    await afterOpen({ ok: false, error: `Cannot read ${file.name}: ${(e as Error).message}.` }, file.name);
    return;
  }
  let text: string;
  try {
    // Strict, as the core reads files from disk: a bad byte is refused, not turned into U+FFFD.
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    await afterOpen(
      { ok: false, error: `${file.name} is not valid UTF-8 text, so it is not a session file.` },
      file.name,
    );
    return;
  }
  await afterOpen(await call(bridgeOrThrow().openSessionData({ name: file.name, text })), file.name);
}

export async function saveSession(as = false): Promise<void> {
  const b = bridgeOrThrow();
  const r = await call(as ? b.saveSessionAs() : b.saveSession());
  if (r.ok) {
    st().setSessionMeta(r.data);
    st().pushNotice({ level: 'info', message: `Saved ${r.data.file ?? ''}` });
    await refreshRecent();
  } else if (r.code !== 'cancelled') st().pushNotice({ level: 'error', message: r.error });
}

/** Export the open session as the person sees it: the heatmap's metric, the targets and the GPU price go along. */
export async function exportReport(format: ExportFormat): Promise<void> {
  const r = await call(bridgeOrThrow().exportReport(format, undefined, reportViewOf(st())));
  if (r.ok) {
    st().setLastExport(r.data.file);
    st().pushNotice({ level: 'info', message: `Exported ${r.data.file}` });
  } else if (r.code !== 'cancelled') st().pushNotice({ level: 'error', message: r.error });
}

/** Copy through main's clipboard (the app grants the page no clipboard permission); a failure is said, not swallowed. */
export async function copyText(text: string): Promise<boolean> {
  const r = await call(bridgeOrThrow().writeClipboard(text));
  if (r.ok) return true;
  // The browser test harness has no main process: the page's own clipboard, where the browser allows it.
  if (
    await navigator.clipboard?.writeText(text).then(
      () => true,
      () => false,
    )
  )
    return true;
  st().pushNotice({ level: 'error', message: `Could not copy: ${r.error}` });
  return false;
}

export function runMenuCommand(cmd: MenuCommand): void {
  switch (cmd) {
    case 'open':
      void openSession();
      break;
    case 'save':
      void saveSession(false);
      break;
    case 'save-as':
      void saveSession(true);
      break;
    case 'export-markdown':
      void exportReport('markdown');
      break;
    case 'export-pdf':
      void exportReport('pdf');
      break;
    case 'export-html':
      void exportReport('html');
      break;
    case 'export-csv':
      void exportReport('csv');
      break;
    case 'export-jsonl':
      void exportReport('jsonl');
      break;
    case 'open-sweep':
      void openSweep();
      break;
    case 'compare-sessions':
      void compareSessions();
      break;
    case 'publish-site':
      void publishSite();
      break;
    default:
      st().setView(cmd.slice('view-'.length) as 'hardware');
  }
}

// ----- comparisons -----

async function showComparison(p: Promise<Invoked<ComparisonView>>): Promise<void> {
  st().setComparisonLoading(true);
  st().setView('results');
  const r = await call(p);
  if (r.ok) st().setComparison(r.data);
  else if (r.code === 'cancelled') st().setComparisonLoading(false);
  else st().setComparisonError(r.error);
}

/**
 * Open a sweep folder (or its sweep.json) as a comparison in Results; with no path, a folder
 * dialog asks. A sweep run in the app calls this with its folder when it finishes.
 */
export async function openSweep(dir?: string): Promise<void> {
  await showComparison(bridgeOrThrow().openSweep(dir));
}

/** A dropped sweep folder or sweep.json: opened as a comparison where the page knows its path (the app). */
export async function openDroppedSweep(file: File): Promise<void> {
  const path = await bridgeOrThrow().pathForFile?.(file);
  if (path) return openSweep(path);
  st().setView('results');
  st().setComparisonError(
    `${file.name}: here a dropped sweep has no folder to read from; open its folder with Open sweep… in Results.`,
  );
}

/** Compare two or more session files, the first the baseline; with no paths, a file dialog asks. */
export async function compareSessions(paths?: string[]): Promise<void> {
  await showComparison(bridgeOrThrow().compareSessions(paths));
}

/** Read the open sweep folder again (a Slurm sweep's jobs move on), leaving the view where the person has it. */
export async function refreshSweep(dir: string): Promise<void> {
  const r = await call(bridgeOrThrow().openSweep(dir));
  if (r.ok) st().setComparison(r.data, false);
  else st().pushNotice({ level: 'error', message: r.error });
}

/** Stop a Slurm sweep: its waiting and running jobs cancelled (scancel) once the person says so. */
export async function cancelSweepJobs(live: number): Promise<void> {
  const which =
    live === 1 ? 'the job of this sweep that waits or runs' : `the ${live} jobs of this sweep that wait or run`;
  const asked = `Cancel ${which} on the cluster (scancel)? What was measured is kept; a resume finishes the rest.`;
  if (!window.confirm(asked)) return;
  const r = await call(bridgeOrThrow().cancelSweepJobs());
  if (r.ok) st().setComparison(r.data, false);
  else st().pushNotice({ level: 'error', message: r.error });
}

export async function exportComparison(format: ComparisonFormat): Promise<void> {
  const r = await call(bridgeOrThrow().exportComparison(format, null, reportViewOf(st())));
  if (r.ok) {
    st().setLastExport(r.data.file);
    st().pushNotice({ level: 'info', message: `Exported ${r.data.file}` });
  } else if (r.code !== 'cancelled') st().pushNotice({ level: 'error', message: r.error });
}

// ----- results site -----

/** File > Publish Site…: folder dialogs ask for the runs and the site folder; a notice says what was built. */
export async function publishSite(from?: string, to?: string): Promise<void> {
  const r = await call(bridgeOrThrow().publishSite(from, to));
  if (r.ok) {
    const d = r.data;
    const unreadable = d.unreadable
      ? ` ${d.unreadable} file${d.unreadable === 1 ? '' : 's'} could not be read (listed in the index).`
      : '';
    st().pushNotice({
      level: d.unreadable ? 'warn' : 'info',
      message: `Published ${d.runs} run${d.runs === 1 ? '' : 's'} to ${d.index} (${d.written} written, ${d.kept} unchanged, ${d.removed} removed).${unreadable}`,
    });
  } else if (r.code !== 'cancelled')
    st().pushNotice({ level: 'error', message: `Could not publish the site: ${r.error}` });
}
