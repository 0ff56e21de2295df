/**
 * Opening a file. In the app, main shows the native dialog (a path, so Save knows where). In a
 * browser there is no dialog in main, so a file input reads the file and sends its text.
 */
import { appStore } from '../store';
import { openSession, openSessionFile } from '../store/actions';

const INPUT_ID = 'session-file-input';

export function FilePicker() {
  return (
    <input
      id={INPUT_ID}
      data-testid="file-input"
      type="file"
      // What the app's Open dialog accepts too: sessions and the reference tool's JSON, report text.
      accept=".json,.txt,.md,application/json,text/plain,text/markdown"
      hidden
      onChange={(e) => {
        const f = e.currentTarget.files?.[0];
        if (f) void openSessionFile(f);
        e.currentTarget.value = '';
      }}
    />
  );
}

export function openFilePicker(): void {
  if (appStore.getState().appInfo?.host === 'electron') void openSession();
  else (document.getElementById(INPUT_ID) as HTMLInputElement | null)?.click();
}
