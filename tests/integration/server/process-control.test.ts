/**
 * Process control on each platform: the exact commands Windows and macOS would run, real
 * processes on this Linux machine, and the supervisor driving Windows' tools (emulated over
 * this machine's real processes) from start to a stop that leaves nothing behind, or that says
 * it could not check.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import type { CommandResult } from '../../../src-main/platform/processes/external-command';
import {
  findGroupProcesses,
  findLeftovers,
  processTree,
  ProcessTableUnavailable,
} from '../../../src-main/engine/server/orphans';
import {
  ProcessControl,
  parseWin32Processes,
  type ProcInfo,
} from '../../../src-main/platform/processes/process-control';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { TRANSITIONS, type CrashInfo } from '../../../src-main/engine/server/supervisor-types';
import { emulatedWindows } from '../../helpers/emulated-windows';
import { alive, FAKE_NVIDIA_SMI, fakeVllmLaunch, freePort } from '../../helpers/fake-servers';

const POWERSHELL_LIST =
  'powershell.exe -NoProfile -NonInteractive -Command Get-CimInstance Win32_Process | Select-Object ProcessId,ParentProcessId,CommandLine,Name | ConvertTo-Json -Compress';

/** Records commands and signals; answers each program from `answers` (not-found otherwise). */
function recorder(platform: NodeJS.Platform, answers: Record<string, CommandResult> = {}) {
  const commands: string[] = [];
  const signals: string[] = [];
  const control = new ProcessControl({
    platform,
    procDir: platform === 'linux' ? undefined : null,
    run: async (command, args) => {
      commands.push([command, ...args].join(' '));
      return answers[command] ?? { status: 'not-found', code: null, stdout: '', stderr: '', ms: 0 };
    },
    runSync: (command, args) => void commands.push(`(sync) ${[command, ...args].join(' ')}`),
    kill: (pid, signal) => void signals.push(`${pid} ${signal}`),
  });
  return { control, commands, signals };
}
const okOut = (stdout: string): CommandResult => ({ status: 'ok', code: 0, stdout, stderr: '', ms: 1 });

// What `Get-CimInstance Win32_Process | Select-Object ... | ConvertTo-Json -Compress` prints (shortened table).
const WIN32_TABLE = JSON.stringify([
  { ProcessId: 0, ParentProcessId: 0, CommandLine: null, Name: 'System Idle Process' },
  {
    ProcessId: 4120,
    ParentProcessId: 3900,
    CommandLine: 'C:\\venv\\Scripts\\vllm.exe serve Qwen/Qwen3-8B --port 8000',
    Name: 'vllm.exe',
  },
  {
    ProcessId: 4188,
    ParentProcessId: 4120,
    CommandLine: '"C:\\venv\\Scripts\\python.exe" -c "from multiprocessing.spawn import spawn_main"',
    Name: 'python.exe',
  },
  { ProcessId: 4200, ParentProcessId: 4188, CommandLine: null, Name: 'conhost.exe' },
  { ProcessId: 5000, ParentProcessId: 3900, CommandLine: 'C:\\Windows\\explorer.exe', Name: 'explorer.exe' },
]);

describe('Windows (win32)', () => {
  it('lists processes with PowerShell Get-CimInstance Win32_Process and parses its JSON', async () => {
    const { control, commands } = recorder('win32', { 'powershell.exe': okOut(`\uFEFF${WIN32_TABLE}\r\n`) });
    const t = await control.list();
    expect(commands).toEqual([POWERSHELL_LIST]);
    expect(t.ok && t.processes.map((p) => [p.pid, p.ppid, p.pgid, p.command])).toEqual([
      [0, 0, null, '[System Idle Process]'],
      [4120, 3900, null, 'C:\\venv\\Scripts\\vllm.exe serve Qwen/Qwen3-8B --port 8000'],
      [4188, 4120, null, '"C:\\venv\\Scripts\\python.exe" -c "from multiprocessing.spawn import spawn_main"'],
      [4200, 4188, null, '[conhost.exe]'],
      [5000, 3900, null, 'C:\\Windows\\explorer.exe'],
    ]);
    // One matching process comes out as an object, not a list.
    expect(parseWin32Processes('{"ProcessId":7,"ParentProcessId":1,"CommandLine":"x.exe","Name":"x.exe"}')).toEqual([
      { pid: 7, ppid: 1, pgid: null, state: 'R', command: 'x.exe' },
    ]);
  });

  it('a server "group" is its tree by parent id, even after the leader died', async () => {
    const { control } = recorder('win32', { 'powershell.exe': okOut(WIN32_TABLE) });
    const withoutLeader = JSON.stringify(
      JSON.parse(WIN32_TABLE).filter((r: { ProcessId: number }) => r.ProcessId !== 4120),
    );
    const dead = recorder('win32', { 'powershell.exe': okOut(withoutLeader) }).control;
    expect((await findGroupProcesses(4120, [], control)).map((p) => p.pid)).toEqual([4120, 4188, 4200]);
    expect((await findGroupProcesses(4120, [], dead)).map((p) => p.pid)).toEqual([4188, 4200]);
  });

  it('asks with taskkill /T, forces with taskkill /T /F, and never sends POSIX signals', async () => {
    const { control, commands, signals } = recorder('win32', { taskkill: okOut('SUCCESS') });
    expect(await control.askToStop(4120)).toBe(true);
    expect(await control.killGroup(4120)).toBe(true);
    await control.killProcess(4188);
    control.killGroupSync(4120);
    expect(commands).toEqual([
      'taskkill /PID 4120 /T',
      'taskkill /PID 4120 /T /F',
      'taskkill /PID 4188 /T /F',
      '(sync) taskkill /PID 4120 /T /F',
    ]);
    expect(signals).toEqual([]);
    expect(control.spawnOptions()).toEqual({ detached: false, windowsHide: true });
  });

  it('where PowerShell cannot list processes, leftovers are "unchecked" and a group check throws', async () => {
    const { control } = recorder('win32');
    expect(await findLeftovers(4120, [], { control, nvidiaSmi: '/nonexistent/nvidia-smi' })).toEqual({
      found: [],
      unchecked: 'PowerShell (Get-CimInstance Win32_Process) is not available',
    });
    await expect(findGroupProcesses(4120, [], control)).rejects.toBeInstanceOf(ProcessTableUnavailable);
  });
});

describe('macOS (darwin)', () => {
  it('lists with ps -A -o pid=,ppid=,pgid=,stat=,args= and signals the process group', async () => {
    const { control, commands, signals } = recorder('darwin', {
      ps: okOut(
        '  501     1   501 Ss   vllm serve m --port 8000\n  502   501   501 S    python -m engine\n  600     1   600 S    other\n',
      ),
    });
    const t = await control.list();
    expect(commands).toEqual(['ps -A -o pid=,ppid=,pgid=,stat=,args=']);
    expect(t.ok && control.groupMembers(t.processes, 501).map((p) => p.pid)).toEqual([501, 502]);
    expect(await control.askToStop(501)).toBe(true);
    expect(await control.killGroup(501)).toBe(true);
    control.killGroupSync(501);
    expect(signals).toEqual(['501 SIGTERM', '-501 SIGKILL', '-501 SIGKILL']);
    expect(control.spawnOptions()).toEqual({ detached: true, windowsHide: true });
  });

  it('where ps fails, nothing is claimed', async () => {
    const { control } = recorder('darwin', { ps: { status: 'timeout', code: null, stdout: '', stderr: '', ms: 5000 } });
    expect((await findLeftovers(501, [], { control, nvidiaSmi: '/nonexistent/nvidia-smi' })).unchecked).toBe(
      'ps did not answer in time',
    );
  });
});

describe('Linux', () => {
  it('reads the real /proc and finds this process with its command line', async () => {
    const t = await new ProcessControl({ platform: 'linux' }).list();
    expect(t.ok).toBe(true);
    const me = t.ok ? t.processes.find((p: ProcInfo) => p.pid === process.pid) : undefined;
    expect(me?.pgid).toBe(Number(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[2]));
    expect(me?.command).toContain(process.argv0.split('/').pop()!);
  });
});

describe('the supervisor state machine', () => {
  it('allows only the listed transitions', () => {
    expect(TRANSITIONS).toEqual({
      idle: ['starting'],
      starting: ['ready', 'stopping', 'failed'],
      ready: ['stopping', 'failed'],
      stopping: ['exited', 'failed'],
      exited: ['starting'],
      failed: ['starting'],
    });
  });
});

describe('the supervisor with Windows process tools (emulated over real processes)', () => {
  const running: Supervisor[] = [];
  afterEach(async () => {
    for (const s of running.splice(0)) await s.stop();
  });

  it('stops the tree with taskkill, checks with PowerShell, and nothing is left', async () => {
    const win = emulatedWindows();
    const sup = new Supervisor();
    running.push(sup);
    const port = await freePort();
    const r = await sup.start(fakeVllmLaunch(port, 'ok'), { control: win.control, nvidiaSmi: FAKE_NVIDIA_SMI });
    expect(r.ok).toBe(true);
    const leader = sup.pid!;
    const tree = await findGroupProcesses(leader, [], win.control);
    expect(tree.map((p) => p.command).join('\n')).toContain('fake-engine-core');
    const rep = await sup.stop();
    expect(win.commands).toContain(`taskkill /PID ${leader} /T`);
    expect(win.commands).toContain(POWERSHELL_LIST);
    expect(rep.unchecked).toBeNull();
    expect(rep.leftBehind).toEqual([]);
    expect(rep.summary).toMatch(/^Stopped cleanly in \d+\.\d s; nothing was left behind\.$/);
    for (const p of tree) expect(alive(p.pid)).toBe(false);
  });

  it('a console server that refuses taskkill without /F is forced at once, not after the stop timeout', async () => {
    const win = emulatedWindows({ consoleRefusesClose: true });
    const sup = new Supervisor();
    running.push(sup);
    const r = await sup.start(fakeVllmLaunch(await freePort(), 'ok'), {
      control: win.control,
      nvidiaSmi: FAKE_NVIDIA_SMI,
      stopTimeoutMs: 30_000,
    });
    expect(r.ok).toBe(true);
    const leader = sup.pid!;
    const rep = await sup.stop();
    const taskkills = win.commands.filter((c) => c.startsWith('taskkill'));
    expect(taskkills.slice(0, 2)).toEqual([`taskkill /PID ${leader} /T`, `taskkill /PID ${leader} /T /F`]);
    // Then each survivor seen before forcing (the engine child), by itself.
    for (const c of taskkills.slice(2)) expect(c).toMatch(/^taskkill \/PID \d+ \/T \/F$/);
    expect(rep.durationMs).toBeLessThan(15_000);
    expect(rep.graceful).toBe(false);
    expect(rep.summary).toMatch(
      /^Did not stop on taskkill \/T; killed after \d+\.\d s; killed 1 leftover process\(es\): pid \d+ \(fake-engine-core\); nothing was left behind\.$/,
    );
  });

  it('a crash where the process table cannot be read: the log says leftovers could not be checked', async () => {
    const win = emulatedWindows({ powershell: false });
    const sup = new Supervisor();
    running.push(sup);
    expect(
      (
        await sup.start(fakeVllmLaunch(await freePort(), 'crash-after-ready'), {
          control: win.control,
          nvidiaSmi: FAKE_NVIDIA_SMI,
        })
      ).ok,
    ).toBe(true);
    const tree = await processTree(sup.pid!, new ProcessControl({ platform: 'linux' }));
    onTestFinished(() => tree.forEach((p) => alive(p.pid) && process.kill(p.pid, 'SIGKILL')));
    const crash = await new Promise<CrashInfo>((r) => sup.once('crashed', r));
    expect(crash.orphans).toEqual([]);
    expect(sup.logTail(60)).toContain(
      '[speedmatrix] could not check for processes the server left running (PowerShell (Get-CimInstance Win32_Process) is not available); look for them by hand (Task Manager, ps, nvidia-smi).',
    );
  });

  it('without PowerShell it still ends the tree, and says it could not check instead of "nothing was left behind"', async () => {
    const win = emulatedWindows({ powershell: false });
    const sup = new Supervisor();
    running.push(sup);
    const port = await freePort();
    const r = await sup.start(fakeVllmLaunch(port, 'ignore-sigterm'), {
      control: win.control,
      nvidiaSmi: FAKE_NVIDIA_SMI,
      stopTimeoutMs: 1000,
    });
    expect(r.ok).toBe(true);
    // This machine's own view of the tree (by parent link: on "Windows" the server has no group of its own).
    const tree = await processTree(sup.pid!, new ProcessControl({ platform: 'linux' }));
    expect(tree.length).toBe(2);
    const rep = await sup.stop();
    expect(win.commands).toContain(`taskkill /PID ${sup.pid} /T /F`);
    expect(rep.unchecked).toBe('PowerShell (Get-CimInstance Win32_Process) is not available');
    expect(rep.summary).not.toContain('nothing was left behind');
    expect(rep.summary).toMatch(
      /could not check for leftover processes \(PowerShell \(Get-CimInstance Win32_Process\) is not available\)/,
    );
    for (const p of tree) await expect.poll(() => alive(p.pid), { timeout: 5000 }).toBe(false);
  });
});

describe('no console window on Windows', () => {
  it('every spawn in the sources sets windowsHide (directly or through spawnOptions())', () => {
    const root = join(__dirname, '../../../src-main');
    const files = readdirSync(root, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
    const calls: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(root, f), 'utf8');
      for (const m of text.matchAll(/\b(spawn|spawnSync)\(/g)) {
        // The call up to its closing parenthesis at depth 0.
        let depth = 0;
        let end = m.index + m[0].length - 1;
        for (; end < text.length; end++) {
          if (text[end] === '(') depth++;
          else if (text[end] === ')' && --depth === 0) break;
        }
        const call = text.slice(m.index, end + 1);
        calls.push(`${f}: ${/windowsHide: true|spawnOptions\(\)/.test(call) ? 'hidden' : call.slice(0, 80)}`);
      }
    }
    expect(calls.length).toBeGreaterThanOrEqual(6);
    expect(calls.filter((c) => !c.endsWith(': hidden'))).toEqual([]);
  });
});
