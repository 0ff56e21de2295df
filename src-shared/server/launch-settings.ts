/**
 * The engine's launch settings, defined once (docs/architecture.md, "One place per concept"): one
 * row per setting, in `vllm serve` order, with its vLLM flag, how vLLM reads its value, and (where
 * the Server view offers it) the field's label, help, engines and how its text is read. The form's
 * schema, the Server view's fields, formToLaunch, vllmFlags and the simulator's reader are all
 * derived from this table, so a setting is added or changed here and nowhere else.
 * Pure and zod-free: the page imports it too.
 */

/** The Server view's engines (the form's `kind`). */
export const SERVER_KINDS = ['vllm-native', 'vllm-docker', 'custom', 'simulator', 'attach'] as const;
export type ServerKind = (typeof SERVER_KINDS)[number];

/** vLLM's own engines: the KV cache dtype choices are checked for them only. */
const VLLM: ServerKind[] = ['vllm-native', 'vllm-docker'];
/** The engines that take vLLM's flags: vLLM itself and the simulator. */
const VLLM_AND_SIM: ServerKind[] = ['simulator', 'vllm-native', 'vllm-docker'];

/** vLLM's --kv-cache-dtype choices (its CacheDType), so a typo is found in the form, not at launch. */
export const KV_CACHE_DTYPES = ['auto', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc', 'fp8_ds_mla'] as const;

/**
 * How vLLM's argument parser reads the flag's value: a whole number, a number, a token count
 * (262144, 256K = 262,144, 256k = 256,000), text, one or more names, or a switch without a value.
 */
export type SettingArg = 'int' | 'float' | 'tokens' | 'text' | 'names' | 'switch';

/** How the Server view's text for a setting is read before launch (formToLaunch). */
export type TextReading =
  | { as: 'tokens' }
  | { as: 'number'; min: number; max: number; integer?: boolean }
  | { as: 'text' }
  /** Free text, checked against `choices` for the engines in `checkedFor` (others take what they take). */
  | { as: 'choice'; choices: readonly string[]; checkedFor: readonly ServerKind[] };

/** A setting the Server view shows as a text field. `label` begins each of its error lines. */
export interface TextField {
  label: string;
  help: string;
  kinds: readonly ServerKind[];
  /** The longest text the form accepts. */
  maxLength: number;
  read: TextReading;
}

/** A setting the Server view shows as a check box; only a value other than `initial` goes on the command line. */
export interface SwitchField {
  label: string;
  kinds: readonly ServerKind[];
  initial: boolean;
}

/** A setting with a value (`--flag VALUE`). `key` names it in LaunchOptions and, with a field, in the Server form. */
interface ValueSetting {
  key: string;
  flag: `--${string}`;
  /** vLLM's short form, e.g. -tp, which the simulator reads too. */
  short?: `-${string}`;
  arg: Exclude<SettingArg, 'switch'>;
  field?: TextField;
}

/** A switch (`--flag`, and `--no-flag` for false where vLLM has it). */
interface SwitchSetting {
  key: string;
  flag: `--${string}`;
  arg: 'switch';
  /** false is said as `--no-FLAG`; otherwise false says nothing. */
  negatable?: boolean;
  field?: SwitchField;
}

export type LaunchSetting = ValueSetting | SwitchSetting;

/** Every vLLM launch setting SpeedMatrix passes, in the order `vllm serve` is given them (after --host and --port). */
export const LAUNCH_SETTINGS = [
  {
    key: 'servedModelName',
    flag: '--served-model-name',
    arg: 'names',
    field: {
      label: 'Served model name',
      help: '--served-model-name: the id clients ask for.',
      kinds: VLLM_AND_SIM,
      maxLength: 200,
      read: { as: 'text' },
    },
  },
  {
    key: 'revision',
    flag: '--revision',
    arg: 'text',
    field: {
      label: 'Revision',
      help: '--revision: branch, tag or commit of the model.',
      kinds: VLLM,
      maxLength: 200,
      read: { as: 'text' },
    },
  },
  {
    key: 'dtype',
    flag: '--dtype',
    arg: 'text',
    field: { label: 'dtype', help: '--dtype, e.g. bfloat16.', kinds: VLLM, maxLength: 40, read: { as: 'text' } },
  },
  {
    key: 'quantization',
    flag: '--quantization',
    short: '-q',
    arg: 'text',
    field: {
      label: 'Quantization',
      help: '--quantization, e.g. awq, fp8.',
      kinds: VLLM,
      maxLength: 40,
      read: { as: 'text' },
    },
  },
  {
    key: 'maxModelLen',
    flag: '--max-model-len',
    arg: 'tokens',
    field: {
      label: 'Max model length',
      help: '--max-model-len in tokens: 262144, 256K (= 262,144) or 256k (= 256,000), as vLLM reads them.',
      kinds: VLLM_AND_SIM,
      maxLength: 20,
      read: { as: 'tokens' },
    },
  },
  {
    key: 'gpuMemoryUtilization',
    flag: '--gpu-memory-utilization',
    arg: 'float',
    field: {
      label: 'GPU memory utilization',
      help: '--gpu-memory-utilization, a fraction of VRAM (0–1).',
      kinds: VLLM_AND_SIM,
      maxLength: 10,
      read: { as: 'number', min: 0.01, max: 1 },
    },
  },
  {
    key: 'maxNumSeqs',
    flag: '--max-num-seqs',
    arg: 'int',
    field: {
      label: 'Max sequences',
      help: '--max-num-seqs: requests run at once; more wait in the queue.',
      kinds: VLLM_AND_SIM,
      maxLength: 10,
      read: { as: 'number', min: 1, max: 1_000_000, integer: true },
    },
  },
  {
    key: 'maxNumBatchedTokens',
    flag: '--max-num-batched-tokens',
    arg: 'int',
    field: {
      label: 'Max batched tokens',
      help: '--max-num-batched-tokens per scheduler step.',
      kinds: VLLM,
      maxLength: 20,
      read: { as: 'tokens' },
    },
  },
  {
    key: 'tensorParallelSize',
    flag: '--tensor-parallel-size',
    short: '-tp',
    arg: 'int',
    field: {
      label: 'Tensor parallel size',
      help: '-tp: GPUs one model is split across.',
      kinds: VLLM,
      maxLength: 5,
      read: { as: 'number', min: 1, max: 1024, integer: true },
    },
  },
  { key: 'pipelineParallelSize', flag: '--pipeline-parallel-size', short: '-pp', arg: 'int' },
  { key: 'dataParallelSize', flag: '--data-parallel-size', short: '-dp', arg: 'int' },
  {
    key: 'kvCacheDtype',
    flag: '--kv-cache-dtype',
    arg: 'text',
    field: {
      label: 'KV cache dtype',
      help: '--kv-cache-dtype, e.g. fp8.',
      kinds: VLLM_AND_SIM,
      maxLength: 40,
      // The simulator and a custom command take what they take; vLLM refuses anything else at start-up.
      read: { as: 'choice', choices: KV_CACHE_DTYPES, checkedFor: VLLM },
    },
  },
  {
    key: 'enablePrefixCaching',
    flag: '--enable-prefix-caching',
    arg: 'switch',
    negatable: true,
    field: { label: 'Prefix caching', kinds: VLLM_AND_SIM, initial: true },
  },
  // Given as VLLM_ATTENTION_BACKEND instead where the vLLM is older than 0.13 (launch.ts).
  { key: 'attentionBackend', flag: '--attention-backend', arg: 'text' },
  {
    key: 'trustRemoteCode',
    flag: '--trust-remote-code',
    arg: 'switch',
    field: { label: 'Trust remote code', kinds: VLLM, initial: false },
  },
  { key: 'distributedExecutorBackend', flag: '--distributed-executor-backend', arg: 'text' },
] as const satisfies readonly LaunchSetting[];

export type LaunchSettingRow = (typeof LAUNCH_SETTINGS)[number];
export type LaunchSettingKey = LaunchSettingRow['key'];

/** The settings the Server view shows as text fields, and as check boxes. */
export type TextSettingRow = Extract<LaunchSettingRow, { field: TextField }>;
export type SwitchSettingRow = Extract<LaunchSettingRow, { field: SwitchField }>;
export type TextSettingKey = TextSettingRow['key'];
export type SwitchSettingKey = SwitchSettingRow['key'];

const hasTextField = (s: LaunchSetting): s is TextSettingRow => s.arg !== 'switch' && s.field !== undefined;
const hasSwitchField = (s: LaunchSetting): s is SwitchSettingRow => s.arg === 'switch' && s.field !== undefined;

export const TEXT_SETTINGS: readonly TextSettingRow[] = LAUNCH_SETTINGS.filter(hasTextField);
export const SWITCH_SETTINGS: readonly SwitchSettingRow[] = LAUNCH_SETTINGS.filter(hasSwitchField);

/** One setting's row by its key. */
export function launchSetting<K extends LaunchSettingKey>(key: K): Extract<LaunchSettingRow, { key: K }> {
  return LAUNCH_SETTINGS.find((s) => s.key === key) as Extract<LaunchSettingRow, { key: K }>;
}

/** Each setting's vLLM flag by its key, for readers of a command line (the simulator). */
export const LAUNCH_FLAGS = Object.fromEntries(LAUNCH_SETTINGS.map((s) => [s.key, s.flag])) as {
  [S in LaunchSettingRow as S['key']]: S['flag'];
};

/** A negatable switch's flag for false, as vLLM spells it: --enable-prefix-caching -> --no-enable-prefix-caching. */
export const negatedFlag = (flag: `--${string}`): `--no-${string}` => `--no-${flag.slice(2)}`;
