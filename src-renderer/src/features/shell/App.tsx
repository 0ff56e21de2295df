/** The app shell: header with version and file, navigation, notices, the current view, drop target. */
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { basename } from '../../path';
import { useApp, appStore } from '../../store';
import { openDroppedSweep, openSessionFile, runMenuCommand } from '../../store/actions';
import { VIEWS, viewForShortcut } from '../../store/ui-slice';
import { isRunning } from '../../store/run-slice';
import { HardwareView } from '../hardware/HardwareView';
import { ServerView } from '../server/ServerView';
import { RunView } from '../run/RunView';
import { ResultsView } from '../results/ResultsView';
import { FilePicker, openFilePicker } from '../../components/FilePicker';

/** How the platform writes the shortcut modifier. */
const MOD_KEY = typeof navigator !== 'undefined' && /Mac/i.test(navigator.platform) ? '⌘' : 'Ctrl';

export function App() {
  const appState = useApp((s) => s.appState);
  const appError = useApp((s) => s.appError);
  const info = useApp((s) => s.appInfo);
  const view = useApp((s) => s.view);
  const setView = useApp((s) => s.setView);
  const meta = useApp((s) => s.sessionMeta);
  const serverState = useApp((s) => s.server.state);
  const runPhase = useApp((s) => s.runPhase);
  const [dragging, setDragging] = useState(false);
  const mainRef = useRef<HTMLElement>(null);

  const fileName = meta.file
    ? basename(meta.file)
    : meta.sourceName
      ? `${meta.sourceName} (not saved here)`
      : meta.hasSession
        ? 'Unsaved session'
        : null;
  useEffect(() => {
    document.title = `${fileName ? `${fileName}${meta.dirty ? ' •' : ''} — ` : ''}SpeedMatrix`;
  }, [fileName, meta.dirty]);

  // Views: Ctrl/Cmd+1..4 everywhere (the app's menu shows them too). Escape closes a cell's detail.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const selected = appStore.getState().selectedCell;
      if (e.key === 'Escape' && selected !== null) {
        const back = focusReturnsToCell();
        appStore.getState().selectCell(null);
        if (back) requestAnimationFrame(() => focusCell(selected));
        return;
      }
      if (!(e.ctrlKey || e.metaKey) || e.altKey) return;
      const v = viewForShortcut(e.key);
      if (!v) return;
      e.preventDefault();
      setView(v);
      mainRef.current?.focus();
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [setView]);

  // In the app the menu's accelerators send these; in a browser the page handles them itself.
  useEffect(() => {
    if (info?.host !== 'bridge') return;
    const onKey = (e: KeyboardEvent) => {
      if (!(e.ctrlKey || e.metaKey)) return;
      const k = e.key.toLowerCase();
      const cmd =
        k === 'o' ? 'open' : k === 's' ? (e.shiftKey ? 'save-as' : 'save') : k === 'e' ? 'export-markdown' : null;
      if (!cmd) return;
      e.preventDefault();
      if (cmd === 'open') openFilePicker();
      else runMenuCommand(cmd);
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [info?.host]);

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    const file = e.dataTransfer.files[0];
    // A folder (a sweep's) or a sweep's index opens as a comparison; anything else as a session.
    const isFolder = e.dataTransfer.items?.[0]?.webkitGetAsEntry?.()?.isDirectory ?? false;
    if (file && (isFolder || file.name === 'sweep.json')) void openDroppedSweep(file);
    else if (file) void openSessionFile(file);
  };

  if (appState === 'error') {
    return (
      <div className="fatal" role="alert" data-app-state="error">
        <h1>SpeedMatrix could not start</h1>
        <p>{appError}</p>
      </div>
    );
  }

  return (
    <div
      className={`shell${dragging ? ' dragging' : ''}`}
      data-app-state={appState}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
    >
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">
            ▦
          </span>{' '}
          SpeedMatrix
          <span className="version" data-testid="app-version">
            {info ? `v${info.version}` : '…'}
          </span>
        </div>
        <nav aria-label="Views">
          {VIEWS.map((v, i) => (
            <button
              key={v.id}
              type="button"
              className="nav-btn"
              aria-current={view === v.id ? 'page' : undefined}
              aria-keyshortcuts={`Control+${i + 1} Meta+${i + 1}`}
              title={`${v.label} (${MOD_KEY}+${i + 1})`}
              onClick={() => {
                setView(v.id);
                mainRef.current?.focus();
              }}
            >
              {v.label}
              {v.id === 'server' && (
                <span className={`dot st-server-${serverState}`} aria-label={`server ${serverState}`} />
              )}
              {v.id === 'run' && isRunning(runPhase) && (
                <span className="dot st-server-starting" aria-label="running" />
              )}
            </button>
          ))}
        </nav>
        <div className="file" data-testid="file-title">
          {fileName ? `${fileName}${meta.dirty ? ' •' : ''}` : 'No session open'}
        </div>
      </header>
      <Notices />
      <main ref={mainRef} tabIndex={-1} className="view">
        {view === 'hardware' && <HardwareView />}
        {view === 'server' && <ServerView />}
        {view === 'run' && <RunView />}
        {view === 'results' && <ResultsView />}
      </main>
      <FilePicker />
      {dragging && (
        <div className="drop-hint">
          Drop a .speedmatrix.json file to open it, or a sweep folder to compare its variants
        </div>
      )}
    </div>
  );
}

function Notices() {
  const notices = useApp((s) => s.notices);
  if (notices.length === 0) return null;
  return (
    <div className="notices" role="status" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className={`notice notice-${n.level}`}>
          <span>{n.message}</span>
          <button type="button" onClick={() => appStore.getState().dismissNotice(n.id)} aria-label="Dismiss">
            ×
          </button>
        </div>
      ))}
    </div>
  );
}

/**
 * A closed detail gives the focus back to its heatmap cell when the focus was in the grid, in the
 * detail, or nowhere (a field keeps it), so the arrow keys go on from there.
 */
function focusReturnsToCell(): boolean {
  const from = document.activeElement;
  return !from || from === document.body || from.closest('.heatmap, .cell-detail') !== null;
}

function focusCell(key: string): void {
  document.querySelector<HTMLButtonElement>(`.heatmap td[data-cell="${CSS.escape(key)}"] button.hm-btn`)?.focus();
}
