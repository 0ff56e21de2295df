/**
 * Serves the built page on `app://speedmatrix/` (app-url.ts) from out/renderer, with the CSP
 * as a response header. The scheme is registered as privileged (standard, secure, fetch) before
 * the app is ready, as Electron requires, and handled once it is.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { protocol } from 'electron';
import { APP_SCHEME, appFileOf, contentTypeOf } from './app-url';
import { CSP } from './csp';

/** Before ready (module load of main): the scheme's privileges. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** Once ready: answer `app://` requests with the files under the built renderer folder, and nothing else. */
export function serveAppScheme(root = join(__dirname, '../renderer')): void {
  protocol.handle(APP_SCHEME, async (request) => {
    const file = appFileOf(root, request.url);
    if (!file) return new Response('Not found', { status: 404 });
    try {
      const body = await readFile(file);
      return new Response(body, {
        headers: { 'Content-Type': contentTypeOf(file), 'Content-Security-Policy': CSP },
      });
    } catch {
      return new Response('Not found', { status: 404 });
    }
  });
}
