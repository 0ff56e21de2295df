/**
 * A quit the app can answer where the launcher cannot send it a signal: on Windows, killing a
 * child is TerminateProcess, so `npm start` (scripts/launch-app.mjs) writes the line `quit` on
 * the app's stdin instead, and the app quits as File > Quit does (it asks about unsaved results
 * and stops the server). Only with SPEEDMATRIX_QUIT_ON_STDIN=1, which the launcher sets.
 */
import { createInterface } from 'node:readline';

export const QUIT_LINE = 'quit';

/** Calls `quit` for each `quit` line on `input`; other lines are ignored. */
export function onQuitLine(input: NodeJS.ReadableStream, quit: () => void): void {
  createInterface({ input, terminal: false }).on('line', (line) => {
    if (line.trim() === QUIT_LINE) quit();
  });
}
