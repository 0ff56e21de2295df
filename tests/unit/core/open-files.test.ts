/** Files handed to the app from outside: paths from a terminal, file:// URIs from a desktop entry's %U. */
import { describe, expect, it } from 'vitest';
import { fileFromArgv } from '../../../src-main/hosts/electron/open-files';

describe('the file a launch hands over', () => {
  it('takes a file:// URI as GNOME passes it for %U, spaces and non-ASCII letters percent-encoded', () => {
    const argv = ['/opt/SpeedMatrix/speedmatrix', 'file:///home/ana/runs/H200%20run%20%C3%A9t%C3%A9.speedmatrix.json'];
    expect(fileFromArgv(argv, '/somewhere')).toBe('/home/ana/runs/H200 run été.speedmatrix.json');
  });

  it('takes a plain path, relative to the launch’s folder, after Chromium switches', () => {
    expect(fileFromArgv(['app', '--no-sandbox', 'runs/a.speedmatrix.json'], '/home/ana')).toBe(
      '/home/ana/runs/a.speedmatrix.json',
    );
    expect(fileFromArgv(['app', '/tmp/b.json'], '/home/ana')).toBe('/tmp/b.json');
  });

  it('leaves out what is not a local file to open: other URIs, a file URI of another host, other extensions', () => {
    expect(fileFromArgv(['app', 'https://example.com/a.json'], '/x')).toBeNull();
    expect(fileFromArgv(['app', 'file://server/share/a.json'], '/x')).toBeNull();
    expect(fileFromArgv(['app', 'file:///home/ana/a.png', '.'], '/x')).toBeNull();
    expect(fileFromArgv(['app', 'https://example.com/a.json', 'file:///r/b.md'], '/x')).toBe('/r/b.md');
  });
});
