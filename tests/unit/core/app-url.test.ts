/** The page's own scheme: which file an app:// URL names, and that none outside the built page is served. */
import { describe, expect, it } from 'vitest';
import { APP_PAGE_URL, appFileOf, contentTypeOf } from '../../../src-main/hosts/electron/app-url';

const ROOT = '/opt/SpeedMatrix/resources/app.asar/out/renderer';

describe('app:// URLs', () => {
  it('name the built page’s files', () => {
    expect(APP_PAGE_URL).toBe('app://speedmatrix/index.html');
    expect(appFileOf(ROOT, APP_PAGE_URL)).toBe(`${ROOT}/index.html`);
    expect(appFileOf(ROOT, 'app://speedmatrix/')).toBe(`${ROOT}/index.html`);
    expect(appFileOf(ROOT, 'app://speedmatrix/assets/index-a1b2.js?x=1#y')).toBe(`${ROOT}/assets/index-a1b2.js`);
    expect(appFileOf(ROOT, 'app://speedmatrix/assets/a%20b.css')).toBe(`${ROOT}/assets/a b.css`);
    // Dot segments and a leading slash stay under the page's folder, as a browser keeps them at its root.
    expect(appFileOf(ROOT, 'app://speedmatrix/../../package.json')).toBe(`${ROOT}/package.json`);
    expect(appFileOf(ROOT, 'app://speedmatrix/%2e%2e/%2e%2e/package.json')).toBe(`${ROOT}/package.json`);
    expect(appFileOf(ROOT, 'app://speedmatrix/%2fetc%2fpasswd')).toBe(`${ROOT}/etc/passwd`);
  });

  it('serve nothing outside it: parent folders (plain or encoded), another host or scheme, a bad escape', () => {
    for (const url of [
      'app://speedmatrix/assets/..%2f..%2f..%2fpackage.json',
      'app://other/index.html',
      'file:///opt/SpeedMatrix/resources/app.asar/out/renderer/index.html',
      'app://speedmatrix/%E0%A4%A',
      'app://speedmatrix/a%00.js',
      'not a url',
    ])
      expect(appFileOf(ROOT, url), url).toBeNull();
  });

  it('go out with their content types', () => {
    expect(contentTypeOf('/x/index.html')).toBe('text/html; charset=utf-8');
    expect(contentTypeOf('/x/a.JS')).toBe('text/javascript; charset=utf-8');
    expect(contentTypeOf('/x/a.css')).toBe('text/css; charset=utf-8');
    expect(contentTypeOf('/x/a.woff2')).toBe('font/woff2');
    expect(contentTypeOf('/x/a.bin')).toBe('application/octet-stream');
  });
});
