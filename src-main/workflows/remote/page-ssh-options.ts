/**
 * The ssh options the app's page may pass on (`-o KEY=VALUE`). The page is not trusted to run
 * programs on this machine, and many ssh options do exactly that (ProxyCommand, LocalCommand,
 * KnownHostsCommand, Match exec), load code (PKCS11Provider, SecurityKeyProvider), read other
 * config (Include), or hand out this machine's credentials (ForwardAgent). So the page gets a
 * short list of options that only say how to reach the host; anything else belongs in the
 * person's own ~/.ssh/config, or on the CLI, which passes what its own user types
 * (README "A GPU server over SSH", "In the app").
 */

const DIGITS = /^\d{1,6}$/;
const YES_NO = /^(yes|no)$/i;
/** A path as one word: no spaces or quotes, with which ssh would split it into more arguments. */
const PATH = /^[^\s"']+$/;

/** Each option the page may pass, by ssh's keyword in lower case, and the values it takes. */
const ALLOWED: Readonly<Record<string, { name: string; value: RegExp }>> = {
  port: { name: 'Port', value: DIGITS },
  user: { name: 'User', value: /^[A-Za-z0-9._][A-Za-z0-9._-]*$/ },
  identityfile: { name: 'IdentityFile', value: PATH },
  identitiesonly: { name: 'IdentitiesOnly', value: YES_NO },
  connecttimeout: { name: 'ConnectTimeout', value: DIGITS },
  connectionattempts: { name: 'ConnectionAttempts', value: DIGITS },
  serveraliveinterval: { name: 'ServerAliveInterval', value: DIGITS },
  serveralivecountmax: { name: 'ServerAliveCountMax', value: DIGITS },
  tcpkeepalive: { name: 'TCPKeepAlive', value: YES_NO },
  compression: { name: 'Compression', value: YES_NO },
  addressfamily: { name: 'AddressFamily', value: /^(any|inet|inet6)$/i },
  // No: ssh would then ask for a password through SSH_ASKPASS, a program on this machine.
  batchmode: { name: 'BatchMode', value: /^yes$/i },
  // Not "no": a host key ssh does not know is never taken without the person's word.
  stricthostkeychecking: { name: 'StrictHostKeyChecking', value: /^(yes|accept-new)$/i },
  // Read only: ssh writes a known-hosts file only when it accepts a new key, which needs "yes" below.
  userknownhostsfile: { name: 'UserKnownHostsFile', value: PATH },
  globalknownhostsfile: { name: 'GlobalKnownHostsFile', value: PATH },
};

const KNOWN_HOSTS_FILES = new Set(['userknownhostsfile', 'globalknownhostsfile']);

/** The names the page may use, for the message that refuses the others. */
export const PAGE_SSH_OPTIONS: readonly string[] = Object.values(ALLOWED).map((a) => a.name);

const keyOf = (option: string): string => option.slice(0, option.indexOf('=')).toLowerCase();
const valueOf = (option: string): string => option.slice(option.indexOf('=') + 1);

/**
 * Why the page may not pass `options` (each `KEY=VALUE`, as parseSshTarget checked them), in one
 * line beginning with the field's label; null when all of them may go to ssh.
 */
export function pageSshOptionsProblem(options: readonly string[]): string | null {
  for (const o of options) {
    const allowed = ALLOWED[keyOf(o)];
    if (!allowed)
      return `SSH options: "${o}" is not taken from the app; it passes on only ${PAGE_SSH_OPTIONS.join(', ')}. Set others for this host in your ~/.ssh/config, or use the CLI's --ssh-option.`;
    if (!allowed.value.test(valueOf(o)))
      return `SSH options: "${o}" is not a value the app passes on for ${allowed.name}.`;
  }
  const strict = options.some((o) => o.toLowerCase() === 'stricthostkeychecking=yes');
  const file = options.find((o) => KNOWN_HOSTS_FILES.has(keyOf(o)));
  if (file && !strict)
    return `SSH options: "${file}" needs StrictHostKeyChecking=yes beside it, so that ssh only reads that file.`;
  return null;
}
