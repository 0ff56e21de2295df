/**
 * Secrets never reach a session file, a report, a log or a command preview. These helpers
 * are the one place that decides what a secret looks like.
 */
export const REDACTED = '<redacted>';

/** Flags whose next argument (or `=value`) is a secret. */
const SECRET_FLAGS = new Set(['--api-key', '--hf-token', '--token', '--password']);
/** Environment variable names that hold secrets. */
const SECRET_ENV = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)/i;

function isSecretEnvName(name: string): boolean {
  return SECRET_ENV.test(name);
}

/** Replace the values of secret flags with <redacted>, in both `--flag value` and `--flag=value` forms. */
export function redactArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    if (arg.startsWith('--') && eq > 0 && SECRET_FLAGS.has(arg.slice(0, eq))) {
      out.push(`${arg.slice(0, eq)}=${REDACTED}`);
    } else if (SECRET_FLAGS.has(arg) && i + 1 < argv.length) {
      out.push(arg, REDACTED);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/** Environment with secret-looking variables' values redacted. */
export function redactEnv(env: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) out[k] = isSecretEnvName(k) ? REDACTED : v;
  return out;
}

/** Replace every occurrence of the given secret values in free text (log lines, messages). */
export function redactText(text: string, secrets: readonly (string | undefined | null)[]): string {
  let out = text;
  for (const s of secrets) if (s && s.length >= 4) out = out.split(s).join(REDACTED);
  return out;
}
