/**
 * A sweep folder's index, `sweep.json`: the server command (secrets redacted), the varied
 * flags, the run configuration, and each variant's state and session file. It is what
 * `sweep --resume DIR` continues from and what the app opens as a comparison. See docs/sweeps.md.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { type Result, fail, ok } from '#shared/result';
import { writeFileAtomic } from '../../platform/session/write';
import { SESSION_EXTENSION } from '#shared/session/schema';
import type { Variant } from '#shared/sweep/variants';

export const SWEEP_MANIFEST = 'sweep.json';
export const SWEEP_FORMAT = 'speedmatrix-sweep';

const SettingSchema = z.object({ flag: z.string(), value: z.string() });
const VariantStateSchema = z.object({
  label: z.string(),
  slug: z.string(),
  settings: z.array(SettingSchema),
  /** Session file name inside the sweep folder. */
  file: z.string(),
  /** pending: not started; partial: stopped before its last cell; done; failed: the server did not start. */
  state: z.enum(['pending', 'partial', 'done', 'failed']),
  failure: z.string().nullable(),
});

const SweepManifestSchema = z.object({
  format: z.literal(SWEEP_FORMAT),
  formatVersion: z.literal(1),
  createdAt: z.string(),
  /** The server command as given, secrets replaced by <redacted>. */
  command: z.array(z.string()),
  /** Environment the server gets beyond the inherited one (the app's GPU selection, extra variables), secrets redacted. */
  env: z.record(z.string(), z.string()).optional(),
  axes: z.array(z.object({ flag: z.string(), values: z.array(z.string()) })),
  /** The run configuration every variant measures (flags as given; the plan fills defaults). */
  config: z.record(z.string(), z.unknown()),
  variants: z.array(VariantStateSchema),
  /**
   * A sweep run as Slurm jobs: the sbatch options given, each variant's latest job id (by slug),
   * and the servers' startup deadline (`--ready-timeout`, seconds) each job applies on its node.
   */
  slurm: z
    .object({
      options: z.array(z.string()),
      readyTimeoutS: z.number().positive().optional(),
      jobs: z.record(z.string(), z.object({ id: z.string(), submittedAt: z.string() })),
    })
    .optional(),
});

export type SweepManifest = z.infer<typeof SweepManifestSchema>;
export type VariantState = z.infer<typeof VariantStateSchema>;

export function variantState(v: Variant): VariantState {
  return {
    label: v.label,
    slug: v.slug,
    settings: v.settings,
    file: `${v.slug}${SESSION_EXTENSION}`,
    state: 'pending',
    failure: null,
  };
}

export async function readManifest(dir: string): Promise<Result<SweepManifest>> {
  const file = join(dir, SWEEP_MANIFEST);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return fail(
      code === 'ENOENT'
        ? `${dir} is not a sweep folder: it has no ${SWEEP_MANIFEST}.`
        : `Could not read ${file}: ${(e as Error).message}`,
    );
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fail(`${file} is not valid JSON (it may be truncated).`);
  }
  const parsed = SweepManifestSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return fail(`${file}: ${issue.path.join('.') || 'the document'}: ${issue.message}`);
  }
  return ok(parsed.data);
}

export async function writeManifest(dir: string, m: SweepManifest): Promise<Result<string>> {
  return writeFileAtomic(join(dir, SWEEP_MANIFEST), `${JSON.stringify(m, null, 2)}\n`);
}
