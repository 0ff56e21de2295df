/**
 * The page's Content-Security-Policy, defined once. Main sends it as a response header, the
 * page carries the same text as a meta tag (src-renderer/index.html; a test keeps the two
 * equal), and electron-vite's dev server page gets the development variant. No 'electron'
 * import: electron.vite.config.ts uses this too.
 */

const DIRECTIVES: [string, string][] = [
  ['default-src', "'none'"],
  ['script-src', "'self'"],
  // Plotly injects style elements.
  ['style-src', "'self' 'unsafe-inline'"],
  ['img-src', "'self' data: blob:"],
  ['font-src', "'self' data:"],
  // The browser test harness reaches its same-origin WebSocket bridge; from app:// nothing remote.
  ['connect-src', "'self'"],
  ['base-uri', "'none'"],
  ['form-action', "'none'"],
  ['frame-src', "'none'"],
  ['object-src', "'none'"],
];

function serialize(extra: Record<string, string>): string {
  return DIRECTIVES.map(([k, v]) => `${k} ${extra[k] ? `${v} ${extra[k]}` : v}`).join('; ');
}

/** Production: scripts only from the app itself; nothing inline, no eval. */
export const CSP = serialize({});

/**
 * Development only, for the Vite dev server's page (`npm run dev`): the React plugin's
 * fast-refresh preamble is an inline module script, and hot reload talks to the dev server
 * over a WebSocket. Those two additions and nothing else.
 */
export function devCsp(devServerUrl: string): string {
  const { protocol, host } = new URL(devServerUrl);
  return serialize({
    'script-src': "'unsafe-inline'",
    'connect-src': `${protocol === 'https:' ? 'wss' : 'ws'}://${host}`,
  });
}

/** Whether the page comes from a dev server (http/https) rather than the built file. */
export function isDevServerUrl(url: string): boolean {
  return /^https?:/i.test(url);
}
