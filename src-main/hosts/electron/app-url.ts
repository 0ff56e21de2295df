/**
 * The page's own scheme: the built page is served as `app://speedmatrix/...` (app-protocol.ts),
 * not from file://, so it has an origin of its own and the GrantFileProtocolExtraPrivileges
 * fuse can be off (README "Packaging"). No 'electron' import: the rules are plain and tested so.
 */
import { extname, isAbsolute, relative, resolve } from 'node:path';

export const APP_SCHEME = 'app';
export const APP_HOST = 'speedmatrix';
/** The page the window loads in the built app. */
export const APP_PAGE_URL = `${APP_SCHEME}://${APP_HOST}/index.html`;

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
};

/** The file under `root` that `url` names; null for another scheme or host, or a path that leaves `root`. */
export function appFileOf(root: string, url: string): string | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (u.protocol !== `${APP_SCHEME}:` || u.host !== APP_HOST) return null;
  let path: string;
  try {
    path = decodeURIComponent(u.pathname);
  } catch {
    return null;
  }
  if (path.includes('\0')) return null;
  const file = resolve(root, `.${path === '/' ? '/index.html' : path}`);
  const inside = relative(root, file);
  return inside && !inside.startsWith('..') && !isAbsolute(inside) ? file : null;
}

/** The Content-Type a served file goes out with. */
export function contentTypeOf(file: string): string {
  return TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
}
