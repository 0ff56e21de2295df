/**
 * Windows' process tools, emulated on this Linux machine for ProcessControl({ platform: 'win32' }):
 * `powershell.exe ... Get-CimInstance Win32_Process ... ConvertTo-Json -Compress` answers with
 * this machine's real process table in the shape PowerShell prints, and `taskkill /PID N /T [/F]`
 * ends the real process tree (SIGTERM without /F, SIGKILL with it), printing taskkill's own
 * lines. Every command is recorded so tests can assert exactly what would run on Windows.
 */
import type { CommandResult } from '../../src-main/platform/processes/external-command';
import { descendants, ProcessControl, type ProcInfo } from '../../src-main/platform/processes/process-control';

export interface EmulatedWindows {
  control: ProcessControl;
  /** Every command run, as "program arg arg ...". */
  commands: string[];
}

const result = (status: CommandResult['status'], code: number | null, stdout: string, stderr = ''): CommandResult => ({
  status,
  code,
  stdout,
  stderr,
  ms: 1,
});

/** Win32_Process rows as `ConvertTo-Json -Compress` prints them. */
export function win32ProcessJson(ps: readonly ProcInfo[]): string {
  const rows = ps.map((p) => ({
    ProcessId: p.pid,
    ParentProcessId: p.ppid,
    CommandLine: p.command.startsWith('[') ? null : p.command,
    Name:
      p.command
        .split(/[\\/ ]/)
        .filter(Boolean)
        .pop() ?? '',
  }));
  return JSON.stringify(rows.length === 1 ? rows[0] : rows);
}

/**
 * `powershell: false`: PowerShell is missing. `consoleRefusesClose: true`: taskkill without /F is
 * refused, as Windows does for console programs such as python.exe with no window to close.
 */
export function emulatedWindows(opts: { powershell?: boolean; consoleRefusesClose?: boolean } = {}): EmulatedWindows {
  const linux = new ProcessControl({ platform: 'linux' });
  const commands: string[] = [];
  const taskkill = async (args: readonly string[]): Promise<CommandResult> => {
    const pid = Number(args[args.indexOf('/PID') + 1]);
    const force = args.includes('/F');
    const table = await linux.list();
    const tree = table.ok ? descendants(table.processes, pid, true).filter((p) => p.state !== 'Z') : [];
    if (tree.length === 0) return result('failed', 128, '', `ERROR: The process "${pid}" not found.`);
    if (!force && opts.consoleRefusesClose) {
      const why = (p: ProcInfo) =>
        `ERROR: The process with PID ${p.pid} (child process of PID ${p.ppid}) could not be terminated.\r\nReason: This process can only be terminated forcefully (with /F option).`;
      return result('failed', 1, '', tree.map(why).join('\r\n'));
    }
    const lines: string[] = [];
    for (const p of tree.reverse()) {
      try {
        process.kill(p.pid, force ? 'SIGKILL' : 'SIGTERM');
        lines.push(`SUCCESS: The process with PID ${p.pid} (child process of PID ${p.ppid}) has been terminated.`);
      } catch {
        // Gone meanwhile.
      }
    }
    return result('ok', 0, lines.join('\r\n'));
  };
  const run = async (command: string, args: readonly string[]): Promise<CommandResult> => {
    commands.push([command, ...args].join(' '));
    if (command === 'taskkill') return taskkill(args);
    if (command === 'powershell.exe' && opts.powershell !== false) {
      const t = await linux.list();
      return t.ok
        ? result('ok', 0, win32ProcessJson(t.processes.filter((p) => p.state !== 'Z')))
        : result('failed', 1, '');
    }
    return result('not-found', null, '');
  };
  const control = new ProcessControl({
    platform: 'win32',
    run,
    kill: () => {
      throw new Error('Windows has no POSIX signals: kill() must not be called');
    },
    runSync: (command, args) => {
      commands.push([command, ...args].join(' '));
      void taskkill(args);
    },
  });
  return { control, commands };
}
