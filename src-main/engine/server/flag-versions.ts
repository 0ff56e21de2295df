/**
 * Which `vllm serve` flags need which vLLM version (first release that has them, from vLLM's git
 * history), so a launch can be checked before it runs instead of failing with "unrecognized arguments".
 */

export interface VersionedFlag {
  flags: string[];
  /** First release with the flag, "major.minor.patch". */
  since: string;
  /** What older releases take instead, when there is something. */
  older?: { env: string };
}

export const VERSIONED_FLAGS: VersionedFlag[] = [
  // vllm/config/attention.py, December 2025; before it, the VLLM_ATTENTION_BACKEND environment variable.
  { flags: ['--attention-backend'], since: '0.13.0', older: { env: 'VLLM_ATTENTION_BACKEND' } },
  { flags: ['--decode-context-parallel-size', '-dcp'], since: '0.10.2' },
  { flags: ['--prefill-context-parallel-size', '-pcp'], since: '0.12.0' },
];

/** "v0.11.0", "0.10.1.1", "0.30.1rc1.dev452+g73a583112" -> [0, 11, 0]; null for "latest", "nightly", ... */
export function versionOf(text: string | null | undefined): [number, number, number] | null {
  const m = /^v?(\d+)\.(\d+)(?:\.(\d+))?/.exec(text?.trim() ?? '');
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

/** True when `version` is known and older than `since`. */
export function olderThan(version: string | null | undefined, since: string): boolean {
  const v = versionOf(version);
  const s = versionOf(since)!;
  if (!v) return false;
  for (let i = 0; i < 3; i++) if (v[i] !== s[i]) return v[i] < s[i];
  return false;
}

/** The flag (as given) of an argv that `version` does not have, with what to do instead. */
export function flagsTooNew(
  argv: readonly string[],
  version: string | null | undefined,
): { flag: string; entry: VersionedFlag }[] {
  const out: { flag: string; entry: VersionedFlag }[] = [];
  for (const a of argv) {
    const name = a.split('=')[0];
    const entry = VERSIONED_FLAGS.find((e) => e.flags.includes(name));
    if (entry && olderThan(version, entry.since)) out.push({ flag: name, entry });
  }
  return out;
}
