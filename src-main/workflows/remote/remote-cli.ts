/**
 * The `speedmatrix` installed on the host: there, of this version or newer, or what to install
 * (README "On a GPU server: install the CLI").
 */
import { APP_VERSION } from '../../platform/runtime/app-version';
import { HardwareSchema, type Hardware } from '#shared/session/schema';
import { RemoteError, remoteScript, runSsh, sshProblem, type SshTarget } from './ssh';

const VERSION = `cd "$HOME" || exit 3
command -v speedmatrix > /dev/null 2>&1 || exit 127
exec speedmatrix --version`;

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (numeric parts of x.y.z). */
export function compareVersions(a: string, b: string): number {
  const pa = a.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  const pb = b.split(/[.-]/).map((p) => Number.parseInt(p, 10) || 0);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) < (pb[i] ?? 0) ? -1 : 1;
  return 0;
}

const installHint = (host: string) =>
  `install it there from this version's package: \`npm pack\` in a clone, copy speedmatrix-${APP_VERSION}.tgz over, then \`ssh ${host} npm install -g ./speedmatrix-${APP_VERSION}.tgz\` (README "On a GPU server"). It must be on the PATH of a non-interactive login (\`ssh ${host} speedmatrix --version\`).`;

/** The host's speedmatrix version; refuses with what to install when it is missing or older than this one. */
export async function checkRemoteCli(target: SshTarget): Promise<string> {
  const r = await runSsh(target, remoteScript(VERSION), { timeoutMs: 60_000 });
  const problem = sshProblem(target, r);
  if (problem) throw new RemoteError(problem);
  if (r.code === 127)
    throw new RemoteError(`speedmatrix is not installed on ${target.host}: ${installHint(target.host)}`);
  const version = r.stdout.trim();
  if (r.code !== 0 || !/^\d+\.\d+/.test(version))
    throw new RemoteError(
      `speedmatrix on ${target.host} did not answer --version (${r.stderr.trim() || `exit code ${r.code}`}): ${installHint(target.host)}`,
    );
  if (compareVersions(version, APP_VERSION) < 0)
    throw new RemoteError(
      `speedmatrix on ${target.host} is version ${version}, older than this one (${APP_VERSION}): ${installHint(target.host)}`,
    );
  return version;
}

const HARDWARE = `cd "$HOME" || exit 3
exec speedmatrix hw --json --timeout "$1"`;

/** What the host's own `speedmatrix hw --json` detects there (its GPUs, CPU, RAM and OS). */
export async function remoteHardware(
  target: SshTarget,
  timeoutS: number,
): Promise<{ hardware: Hardware; noGpuMessage: string | null }> {
  await checkRemoteCli(target);
  const r = await runSsh(target, remoteScript(HARDWARE, [String(timeoutS)]), { timeoutMs: (timeoutS * 4 + 60) * 1000 });
  const problem = sshProblem(target, r);
  if (problem) throw new RemoteError(problem);
  if (r.code !== 0) throw new RemoteError(`speedmatrix hw on ${target.host} failed: ${r.stderr.trim()}`);
  let parsed: { hardware?: unknown; noGpuMessage?: unknown };
  try {
    parsed = JSON.parse(r.stdout) as typeof parsed;
  } catch {
    throw new RemoteError(`speedmatrix hw --json on ${target.host} printed no JSON: ${r.stdout.slice(0, 200)}`);
  }
  const hw = HardwareSchema.safeParse(parsed.hardware);
  if (!hw.success)
    throw new RemoteError(`speedmatrix hw on ${target.host} answered hardware this version cannot read.`);
  return { hardware: hw.data, noGpuMessage: typeof parsed.noGpuMessage === 'string' ? parsed.noGpuMessage : null };
}
