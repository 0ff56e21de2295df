/** The application menu: File (Open, Open Recent, Save, Save As, Export), View, Help. */
import { type BrowserWindow, Menu, type MenuItemConstructorOptions, shell } from 'electron';
import { basename } from 'node:path';
import type { MenuCommand } from '../../src-shared/ipc/contract';

export interface MenuDeps {
  send(cmd: MenuCommand): void;
  openRecent(file: string): void;
  recent: string[];
  window(): BrowserWindow | null;
}

export function buildMenu(d: MenuDeps): Menu {
  const isMac = process.platform === 'darwin';
  const item = (label: string, cmd: MenuCommand, accelerator?: string): MenuItemConstructorOptions => ({ label, accelerator, click: () => d.send(cmd) });
  const template: MenuItemConstructorOptions[] = [
    ...(isMac ? [{ role: 'appMenu' as const }] : []),
    {
      label: 'File',
      submenu: [
        item('Open…', 'open', 'CmdOrCtrl+O'),
        {
          label: 'Open Recent',
          submenu: d.recent.length ? d.recent.map((f) => ({ label: basename(f), toolTip: f, click: () => d.openRecent(f) })) : [{ label: 'No recent files', enabled: false }],
        },
        { type: 'separator' },
        item('Save', 'save', 'CmdOrCtrl+S'),
        item('Save As…', 'save-as', 'CmdOrCtrl+Shift+S'),
        { type: 'separator' },
        item('Export Markdown…', 'export-markdown', 'CmdOrCtrl+E'),
        item('Export PDF…', 'export-pdf'),
        { type: 'separator' },
        isMac ? { role: 'close' } : { role: 'quit' },
      ],
    },
    {
      label: 'View',
      submenu: [
        item('Hardware', 'view-hardware', 'CmdOrCtrl+1'),
        item('Server', 'view-server', 'CmdOrCtrl+2'),
        item('Run', 'view-run', 'CmdOrCtrl+3'),
        item('Results', 'view-results', 'CmdOrCtrl+4'),
        { type: 'separator' },
        { role: 'resetZoom' },
        { role: 'zoomIn' },
        { role: 'zoomOut' },
        { role: 'togglefullscreen' },
      ],
    },
    {
      label: 'Help',
      submenu: [
        { label: 'vLLM documentation', click: () => void shell.openExternal('https://docs.vllm.ai/') },
        { label: 'Toggle developer tools', accelerator: 'CmdOrCtrl+Alt+I', click: () => d.window()?.webContents.toggleDevTools() },
      ],
    },
  ];
  return Menu.buildFromTemplate(template);
}
