/**
 * The right-click menu of text fields (Cut, Copy, Paste, Select All), and Copy on selected
 * text elsewhere. Electron shows no context menu by itself; each item is a role, so the
 * platform does the work and the page needs no clipboard permission.
 */
import { type BrowserWindow, type ContextMenuParams, Menu, type MenuItemConstructorOptions } from 'electron';

function editContextMenuTemplate(
  params: Pick<ContextMenuParams, 'isEditable' | 'selectionText' | 'editFlags'>,
): MenuItemConstructorOptions[] {
  const f = params.editFlags;
  if (params.isEditable) {
    return [
      { role: 'undo', enabled: f.canUndo },
      { role: 'redo', enabled: f.canRedo },
      { type: 'separator' },
      { role: 'cut', enabled: f.canCut },
      { role: 'copy', enabled: f.canCopy },
      { role: 'paste', enabled: f.canPaste },
      { type: 'separator' },
      { role: 'selectAll', enabled: f.canSelectAll },
    ];
  }
  if (params.selectionText.trim()) return [{ role: 'copy', enabled: f.canCopy }];
  return [];
}

export function showEditContextMenu(win: BrowserWindow, params: ContextMenuParams): void {
  const template = editContextMenuTemplate(params);
  if (template.length) Menu.buildFromTemplate(template).popup({ window: win });
}
