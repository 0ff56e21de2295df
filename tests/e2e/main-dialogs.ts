/**
 * Native dialogs in the real app, driven from a test: main's dialog.showMessageBox is replaced
 * with one that records the question and gives a fixed answer (the usual way to drive Electron
 * dialogs from Playwright), so quitting with unsaved results does not wait on a person.
 */
import type { ElectronApplication } from 'playwright';

export interface Asked {
  message?: string;
  buttons?: string[];
}

/** Answers every later question with button `response`, and keeps what was asked. */
export async function answerQuestions(app: ElectronApplication, response: number): Promise<void> {
  await app.evaluate(({ dialog }, r) => {
    const g = globalThis as unknown as { __asked?: Asked[] };
    g.__asked ??= [];
    dialog.showMessageBox = (async (...a: unknown[]) => {
      g.__asked!.push(a.at(-1) as Asked);
      return { response: r, checkboxChecked: false };
    }) as typeof dialog.showMessageBox;
  }, response);
}

export function asked(app: ElectronApplication): Promise<Asked[]> {
  return app.evaluate(() => (globalThis as unknown as { __asked?: Asked[] }).__asked ?? []);
}

/** Closes the app, answering "Don't Save" if it asks about unsaved results (it does after a run). */
export async function closeApp(app: ElectronApplication | undefined): Promise<void> {
  if (!app) return;
  await answerQuestions(app, 1).catch(() => undefined);
  await app.close();
}
