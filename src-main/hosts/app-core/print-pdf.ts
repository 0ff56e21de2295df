/** A report or comparison as PDF: its HTML printed by the app's Chromium, failures said in words. */
import { UserError } from './user-error';

export type PrintPdf = (html: string) => Promise<Uint8Array>;

export async function printedPdf(print: PrintPdf | undefined, html: string): Promise<Uint8Array> {
  if (!print) throw new UserError('PDF export is not available here; export Markdown or HTML instead.');
  try {
    return await print(html);
  } catch (e) {
    throw new UserError(`Could not make the PDF: ${(e as Error).message}`);
  }
}
