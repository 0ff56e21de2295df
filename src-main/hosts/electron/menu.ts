/**
 * The application menu: File (Open, Open Recent, Save, Save As, Export, Publish Site, Quit), Edit (the
 * standard roles, so Cmd/Ctrl+C/V/X/A/Z work in text fields on every platform), View (the four
 * views on Ctrl/Cmd+1..4), Window, Help. Built from a small state so main rebuilds it only when
 * what it shows changes.
 */
import { type BrowserWindow, Menu, type MenuItemConstructorOptions, app, shell } from 'electron';
import { basename } from 'node:path';
import type { MenuCommand } from '#shared/ipc/contract';

/** What the menu shows; the menu is rebuilt only when this changes (see menuKey). */
export interface MenuState {
  recent: string[];
  /** Save and Export need an open session. */
  hasSession: boolean;
}

interface MenuActions {
  send(cmd: MenuCommand): void;
  openRecent(file: string): void;
  window(): BrowserWindow | null;
}

/** The four views in the order of their shortcuts, Ctrl/Cmd+1..4. */
const VIEW_SHORTCUTS: { label: string; cmd: MenuCommand; accelerator: string }[] = [
  { label: 'Hardware', cmd: 'view-hardware', accelerator: 'CmdOrCtrl+1' },
  { label: 'Server', cmd: 'view-server', accelerator: 'CmdOrCtrl+2' },
  { label: 'Run', cmd: 'view-run', accelerator: 'CmdOrCtrl+3' },
  { label: 'Results', cmd: 'view-results', accelerator: 'CmdOrCtrl+4' },
];

export function menuKey(s: MenuState): string {
  return JSON.stringify([s.recent, s.hasSession]);
}

function menuTemplate(
  s: MenuState,
  a: MenuActions,
  platform: NodeJS.Platform = process.platform,
  devTools = false,
): MenuItemConstructorOptions[] {
  const isMac = platform === 'darwin';
  const item = (label: string, cmd: MenuCommand, accelerator?: string, enabled = true): MenuItemConstructorOptions => ({
    label,
    accelerator,
    enabled,
    click: () => a.send(cmd),
  });
  return [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        item('Open…', 'open', 'CmdOrCtrl+O'),
        item('Open Sweep…', 'open-sweep'),
        item('Compare Sessions…', 'compare-sessions'),
        item('Publish Site…', 'publish-site'),
        {
          label: 'Open Recent',
          submenu: s.recent.length
            ? s.recent.map((f) => ({ label: basename(f), toolTip: f, click: () => a.openRecent(f) }))
            : [{ label: 'No recent files', enabled: false }],
        },
        { type: 'separator' },
        item('Save', 'save', 'CmdOrCtrl+S', s.hasSession),
        item('Save As…', 'save-as', 'CmdOrCtrl+Shift+S', s.hasSession),
        { type: 'separator' },
        item('Export Markdown…', 'export-markdown', 'CmdOrCtrl+E', s.hasSession),
        item('Export HTML…', 'export-html', undefined, s.hasSession),
        item('Export PDF…', 'export-pdf', undefined, s.hasSession),
        item('Export Cells as CSV…', 'export-csv', undefined, s.hasSession),
        item('Export Requests as JSON Lines…', 'export-jsonl', undefined, s.hasSession),
        { type: 'separator' },
        // macOS quits from the app menu; closing the window quits too, and both ask first.
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    { role: 'editMenu' },
    {
      label: 'View',
      submenu: [
        ...VIEW_SHORTCUTS.map((v) => item(v.label, v.cmd, v.accelerator)),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { type: 'separator' },
        { role: 'togglefullscreen' },
      ],
    },
    { role: 'windowMenu' },
    {
      role: 'help',
      submenu: [
        { label: 'vLLM documentation', click: () => void shell.openExternal('https://docs.vllm.ai/') },
        // Development only: an installed app has no developer tools (the window refuses them too).
        ...(devTools
          ? [
              {
                label: 'Toggle developer tools',
                accelerator: 'CmdOrCtrl+Alt+I',
                click: () => a.window()?.webContents.toggleDevTools(),
              },
            ]
          : []),
      ],
    },
  ];
}

export function buildMenu(s: MenuState, a: MenuActions): Menu {
  return Menu.buildFromTemplate(menuTemplate(s, a, process.platform, !app.isPackaged));
}
