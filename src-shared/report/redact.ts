/**
 * Last line of defence for launch commands shown in reports: whatever the session holds, an
 * API key or token never reaches a document. Works on the one-line shell form.
 */
import { shellQuote as quoteForShell } from '../shell-quote';
import { REDACTED } from '../session/secrets';

const SECRET_FLAG = /(--(?:api-key|hf-token|token|password))(=|\s+)("[^"]*"|'[^']*'|\S+)/g;
const SECRET_ENV =
  /(^|\s)([A-Za-z_][A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL)[A-Za-z0-9_]*)=("[^"]*"|'[^']*'|\S+)/gi;
const BEARER = /(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/g;

export function redactCommandLine(text: string): string {
  return text
    .replace(SECRET_FLAG, (_m, flag: string, sep: string) => `${flag}${sep}${REDACTED}`)
    .replace(SECRET_ENV, (_m, lead: string, name: string) => `${lead}${name}=${REDACTED}`)
    .replace(BEARER, `$1${REDACTED}`);
}

/** Quote one argv word as the launch display does, but show the placeholder bare, as the reference report writes it. */
function shellQuote(word: string): string {
  return word === REDACTED ? word : quoteForShell(word);
}

/** The one-line form of a launch, from argv and env, redacted. */
export function commandLineOf(argv: readonly string[], env: Readonly<Record<string, string>>): string {
  const envPart = Object.entries(env).map(([k, v]) => `${k}=${shellQuote(v)}`);
  const words = [...(envPart.length ? ['env', ...envPart] : []), ...argv.map(shellQuote)];
  return redactCommandLine(words.join(' '));
}
