/** PDF export in the app: the report's HTML printed by a hidden, locked-down window. */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BrowserWindow } from 'electron';
import { removeTempDir } from '../../platform/runtime/temp';

export async function printPdf(html: string): Promise<Uint8Array> {
  // A file, not a data: URL, so a large report is not cut at the URL length limit.
  const dir = await mkdtemp(join(tmpdir(), 'speedmatrix-print-'));
  const file = join(dir, 'report.html');
  await writeFile(file, html);
  const win = new BrowserWindow({
    show: false,
    webPreferences: { sandbox: true, contextIsolation: true, nodeIntegration: false, javascript: false },
  });
  try {
    win.webContents.setWindowOpenHandler(() => ({ action: 'deny' }));
    win.webContents.on('will-navigate', (e) => e.preventDefault());
    await win.loadFile(file);
    return await win.webContents.printToPDF({ printBackground: true, pageSize: 'A4', landscape: true });
  } finally {
    win.destroy();
    // The window may still hold report.html for a moment on Windows: the PDF is good regardless.
    await removeTempDir(dir);
  }
}
