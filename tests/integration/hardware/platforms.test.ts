/**
 * Hardware detection on Windows and macOS: where nvidia-smi.exe is looked for, a no-GPU
 * message that names only tools that exist there, and systeminformation calls that are cut at
 * their deadline with the PowerShell they started ended.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { detectHardware, withDeadline } from '../../../src-main/platform/hardware/detect';
import { findNvidiaSmi } from '../../../src-main/platform/hardware/nvidia-smi-path';
import { emulatedWindows } from '../../helpers/emulated-windows';
import { alive } from '../../helpers/fake-servers';

const WIN_ENV = {
  Path: 'C:\\Windows\\system32;C:\\Windows',
  SystemRoot: 'C:\\Windows',
  ProgramFiles: 'C:\\Program Files',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
};
const winSmi = (files: string[], env: NodeJS.ProcessEnv = WIN_ENV) =>
  findNvidiaSmi({ platform: 'win32', env, isFile: (p) => files.includes(p) });

describe('findNvidiaSmi', () => {
  it('Windows: PATH first, then System32 (DCH drivers), then Program Files\\NVIDIA Corporation\\NVSMI', () => {
    expect(winSmi(['C:\\Windows\\system32\\nvidia-smi.exe'])).toBe('C:\\Windows\\system32\\nvidia-smi.exe');
    const notOnPath = { ...WIN_ENV, Path: 'C:\\Users\\me\\bin', SystemRoot: 'D:\\Win' };
    expect(winSmi(['D:\\Win\\System32\\nvidia-smi.exe'], notOnPath)).toBe('D:\\Win\\System32\\nvidia-smi.exe');
    expect(winSmi(['C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe'], notOnPath)).toBe(
      'C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvidia-smi.exe',
    );
    expect(winSmi([], notOnPath)).toBe('nvidia-smi');
  });
  it('macOS and Linux: PATH only', () => {
    expect(findNvidiaSmi({ platform: 'darwin', env: { PATH: '/usr/bin' }, isFile: () => false })).toBe('nvidia-smi');
    expect(
      findNvidiaSmi({
        platform: 'linux',
        env: { PATH: '/usr/local/bin:/usr/bin' },
        isFile: (p) => p === '/usr/bin/nvidia-smi',
      }),
    ).toBe('/usr/bin/nvidia-smi');
  });
});

describe('no GPU: what detection saw', () => {
  const none = { nvidiaSmi: '/nonexistent/nvidia-smi', amdSmi: '/nonexistent/amd-smi', timeoutMs: 8000 };
  for (const platform of ['win32', 'darwin'] as const) {
    it(`${platform}: the message and the sources name no lspci`, async () => {
      const r = await detectHardware({ ...none, platform });
      expect(r.noGpuMessage).toMatch(
        /^No supported GPU found \(no NVIDIA GPU via nvidia-smi, no AMD GPU via amd-smi, no Apple GPU\); systeminformation saw /,
      );
      expect(r.noGpuMessage).not.toMatch(/lspci/);
      expect(r.seen.join('\n')).not.toMatch(/lspci/);
    });
  }
  it('linux: lspci is asked and named', async () => {
    const r = await detectHardware({ ...none, platform: 'linux' });
    expect(r.noGpuMessage).toMatch(/lspci (saw|is not installed|gave no answer)/);
  });
});

describe('a systeminformation call past its deadline on Windows', () => {
  it('gives up at the deadline and ends the PowerShell it started with taskkill /T /F', async () => {
    // A child of this process whose command line names powershell.exe, as systeminformation's is.
    const ps = spawn(
      process.execPath,
      [
        '-e',
        'setTimeout(() => {}, 60000)',
        'powershell.exe',
        '-NoProfile',
        '-Command',
        'Get-CimInstance Win32_VideoController',
      ],
      { stdio: 'ignore' },
    );
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', 'not-a-shell'], { stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 300));
      const win = emulatedWindows();
      const t0 = Date.now();
      expect(await withDeadline(new Promise<never>(() => undefined), 300, win.control)).toBeNull();
      expect(Date.now() - t0).toBeGreaterThanOrEqual(300);
      expect(win.commands).toContain(`taskkill /PID ${ps.pid} /T /F`);
      expect(win.commands.filter((c) => c.startsWith('taskkill'))).toEqual([`taskkill /PID ${ps.pid} /T /F`]);
      await expect.poll(() => alive(ps.pid!), { timeout: 5000 }).toBe(false);
      expect(alive(other.pid!)).toBe(true);
    } finally {
      ps.kill('SIGKILL');
      other.kill('SIGKILL');
    }
  });
  it('an answer in time is returned and nothing is ended', async () => {
    const win = emulatedWindows();
    expect(await withDeadline(Promise.resolve(42), 1000, win.control)).toBe(42);
    expect(win.commands).toEqual([]);
  });
});
