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

/** "--max-num-seqs" or "max-num-seqs" as the server spells it, or why it is not a flag. */
function flagOf(text: string): string | { error: string } {
  const name = text.trim().replace(/^-+/, '');
  if (!/^[A-Za-z0-9][A-Za-z0-9_-]*$/.test(name)) return { error: `"${text.trim()}" is not a flag name` };
  return `${name.length === 1 ? '-' : '--'}${name}`;
}

/** "4, 16" as a list of values, or why not. */
function valuesOf(text: string): string[] | { error: string } {
  const values = text.split(',').map((v) => v.trim());
  if (values.some((v) => v === '')) return { error: 'give every value, separated by commas' };
  const twice = values.find((v, i) => values.indexOf(v) !== i);
  if (twice !== undefined) return { error: `${twice} is given twice` };
  return values;
}

/** "--max-num-seqs=64,128,256" (the leading dashes may be left out). */
export function parseVary(spec: string): VaryAxis {
  const eq = spec.indexOf('=');
  if (eq <= 0) throw new VaryError(`"${spec}" is not FLAG=V1,V2 (${EXAMPLE})`);
  const flag = flagOf(spec.slice(0, eq));
  if (typeof flag !== 'string') throw new VaryError(`${flag.error} (${EXAMPLE})`);
  const values = valuesOf(spec.slice(eq + 1));
  if (!Array.isArray(values)) throw new VaryError(`"${spec}": ${values.error} (${EXAMPLE})`);
  return { flag, values };
}

/** One varied setting as a person types it in the app: the flag, and its values separated by commas. */
export interface AxisInput {
  flag: string;
  values: string;
}

/** What is wrong with one field of an AxisInput, in words for the field. */
interface AxisProblem {
  axis: number;
  field: 'flag' | 'values';
  message: string;
}

/**
 * Flags SpeedMatrix sets for every variant itself (where it listens, the key it sends): a sweep
 * that varied them would measure a server it cannot reach.
 */
const FIXED_FLAGS = ['--host', '--port', '--api-key'];

/** The typed settings as axes, or every problem found, each at its field. */
export function checkAxes(inputs: readonly AxisInput[]): { axes: VaryAxis[]; problems: AxisProblem[] } {
  const axes: VaryAxis[] = [];
  const problems: AxisProblem[] = [];
  const seen = new Set<string>();
  inputs.forEach((input, axis) => {
    const flag = input.flag.trim() ? flagOf(input.flag) : { error: 'give the flag to vary, e.g. --max-num-seqs' };
    const values = input.values.trim() ? valuesOf(input.values) : { error: 'give its values, e.g. 4, 16' };
    if (typeof flag !== 'string') problems.push({ axis, field: 'flag', message: flag.error });
    else if (FIXED_FLAGS.includes(flag))
      problems.push({ axis, field: 'flag', message: `${flag} is set by SpeedMatrix for every variant` });
    else if (seen.has(flag))
      problems.push({ axis, field: 'flag', message: `${flag} is varied already: give all its values there` });
    if (typeof flag === 'string') seen.add(flag);
    if (!Array.isArray(values)) problems.push({ axis, field: 'values', message: values.error });
    if (typeof flag === 'string' && Array.isArray(values) && !problems.some((p) => p.axis === axis))
      axes.push({ flag, values });
  });
  return { axes, problems };
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
