/**
 * macOS apps from Finder get launchd's PATH; SpeedMatrix takes the login shell's instead
 * (src-main/platform/processes/login-shell-path.ts). Here a real shell script stands in for the person's shell:
 * it prints a greeting as many rc files do, and sets its own PATH, as a profile would.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { adoptLoginShellPath, loginShellPath, mergePaths } from '../../../src-main/platform/processes/login-shell-path';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-login-shell-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A "shell" that ignores -il, prints a banner, and runs the -c script with a profile's PATH. */
function fakeShell(profilePath: string): string {
  const file = join(dir, `shell-${Math.random().toString(36).slice(2)}`);
  writeFileSync(
    file,
    `#!/bin/sh\necho "Welcome back"\nPATH='${profilePath}'\nexport PATH\nshift\nexec /bin/sh -c "$1"\n`,
  );
  chmodSync(file, 0o755);
  return file;
}

it('reads the PATH the login shell sets, past what its rc files print', async () => {
  const shell = fakeShell('/opt/homebrew/bin:/Users/me/venv/bin:/usr/bin:/bin');
  expect(await loginShellPath({ SHELL: shell })).toBe('/opt/homebrew/bin:/Users/me/venv/bin:/usr/bin:/bin');
});

it('a shell that cannot start gives null, and the PATH is left as it was', async () => {
  expect(await loginShellPath({ SHELL: join(dir, 'no-such-shell') })).toBeNull();
  const env: NodeJS.ProcessEnv = { SHELL: join(dir, 'no-such-shell'), PATH: '/usr/bin:/bin' };
  await adoptLoginShellPath('darwin', env);
  expect(env.PATH).toBe('/usr/bin:/bin');
});

it('on macOS the login PATH comes first, the old entries it lacks after; elsewhere nothing changes', async () => {
  const shell = fakeShell('/opt/homebrew/bin:/usr/bin');
  const mac: NodeJS.ProcessEnv = { SHELL: shell, PATH: '/usr/bin:/bin:/usr/sbin:/sbin' };
  await adoptLoginShellPath('darwin', mac);
  expect(mac.PATH).toBe('/opt/homebrew/bin:/usr/bin:/bin:/usr/sbin:/sbin');
  const linux: NodeJS.ProcessEnv = { SHELL: shell, PATH: '/usr/bin' };
  await adoptLoginShellPath('linux', linux);
  expect(linux.PATH).toBe('/usr/bin');
  expect(mergePaths('/a::/b', '/b:/c')).toBe('/a:/b:/c');
});

it('a shell that never finishes is ended after its time, and the app goes on with its PATH', async () => {
  const shell = join(dir, 'hanging-shell');
  writeFileSync(shell, '#!/bin/sh\nsleep 60\n');
  chmodSync(shell, 0o755);
  const started = Date.now();
  expect(await loginShellPath({ SHELL: shell })).toBeNull();
  expect(Date.now() - started).toBeLessThan(15_000);
}, 20_000);
