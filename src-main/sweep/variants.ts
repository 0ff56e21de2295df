/**
 * Launch-setting variants of a sweep: `--vary --max-num-seqs=64,128` axes, their combinations,
 * a file-safe name for each, and the server command with a variant's settings applied. Pure;
 * see docs/sweeps.md.
 */

export interface VaryAxis {
  /** The flag as the server spells it, e.g. "--max-num-seqs". */
  flag: string;
  values: string[];
}

export interface Setting {
  flag: string;
  value: string;
}

export interface Variant {
  settings: Setting[];
  /** "--max-num-seqs=64 --kv-cache-dtype=fp8", for people. */
  label: string;
  /** "max-num-seqs-64_kv-cache-dtype-fp8", for file names. */
  slug: string;
}

export class VaryError extends Error {}

const EXAMPLE = 'e.g. --vary --max-num-seqs=64,128,256';

/** "--max-num-seqs=64,128,256" (the leading dashes may be left out). */
export function parseVary(spec: string): VaryAxis {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new VaryError(`"${spec}" is not FLAG=V1,V2 (${EXAMPLE})`);
  const name = spec.slice(0, eq).trim().replace(/^-+/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name))
    throw new VaryError(`"${spec.slice(0, eq)}" is not a flag name (${EXAMPLE})`);
  const values = spec
    .slice(eq + 1)
    .split(',')
    .map((v) => v.trim());
  if (values.length === 0 || values.some((v) => v === '')) {
    throw new VaryError(`"${spec}": give every value, separated by commas (${EXAMPLE})`);
  }
  if (new Set(values).size !== values.length) throw new VaryError(`"${spec}": a value is given twice`);
  return { flag: `${name.length === 1 ? '-' : '--'}${name}`, values };
}

const slugPart = (s: string): string => s.replace(/^-+/, '').replace(/[^A-Za-z0-9._-]+/g, '-');

/** Every combination of the axes, the first axis varying slowest. */
export function variantsOf(axes: readonly VaryAxis[]): Variant[] {
  const flags = axes.map((a) => a.flag);
  if (new Set(flags).size !== flags.length)
    throw new VaryError('each flag can be varied once; list all its values in one --vary');
  let combos: Setting[][] = [[]];
  for (const axis of axes)
    combos = combos.flatMap((c) => axis.values.map((value) => [...c, { flag: axis.flag, value }]));
  return combos.map((settings) => ({
    settings,
    label: settings.map((s) => `${s.flag}=${s.value}`).join(' '),
    slug: settings.map((s) => `${slugPart(s.flag)}-${slugPart(s.value)}`).join('_') || 'base',
  }));
}

/**
 * The server command with a variant's settings: a flag already there (`--flag v` or
 * `--flag=v`) gets the new value in place; a flag not there is appended.
 */
export function applyVariant(argv: readonly string[], variant: Variant): string[] {
  const out = [...argv];
  for (const { flag, value } of variant.settings) {
    const at = out.findIndex((a) => a === flag || a.startsWith(`${flag}=`));
    if (at < 0) out.push(flag, value);
    else if (out[at] === flag) out.splice(at, 2, flag, value);
    else out[at] = `${flag}=${value}`;
  }
  return out;
}
