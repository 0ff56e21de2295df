/**
 * The Server view's launch form: its engines, where they run, and every text field with its help
 * and engines (the launch settings' from src-shared/server/launch-settings.ts).
 */
import type { ServerForm } from '#shared/ipc/forms';
import { launchSetting, type TextSettingKey } from '#shared/server/launch-settings';

export const KINDS: { id: ServerForm['kind']; label: string; help: string }[] = [
  {
    id: 'simulator',
    label: 'Simulator',
    help: 'The built-in simulated vLLM: no GPU needed, same launch and measure path.',
  },
  {
    id: 'vllm-native',
    label: 'vLLM (native)',
    help: 'The vllm executable on PATH or one you choose, e.g. inside a venv.',
  },
  {
    id: 'vllm-docker',
    label: 'vLLM in Docker',
    help: 'docker run --gpus all vllm/vllm-openai with your HF cache mounted.',
  },
  { id: 'custom', label: 'Custom command', help: 'Any command that starts an OpenAI-compatible server.' },
  { id: 'attach', label: 'Attach to URL', help: 'A server already running elsewhere: SpeedMatrix only measures it.' },
];

export const WHERE: { id: ServerForm['where']; label: string; help: string }[] = [
  { id: 'local', label: 'This machine', help: 'The server runs here, and so does the benchmark client.' },
  {
    id: 'ssh',
    label: 'Remote host (SSH)',
    help: 'The server and the benchmark client run on the host, by the speedmatrix installed there, over your own ssh (keys, agent, ~/.ssh/config; never a password). The run goes on there if the link drops.',
  },
];

export type TextKey = { [K in keyof ServerForm]: ServerForm[K] extends string ? K : never }[keyof ServerForm];

export interface TextField {
  key: TextKey;
  label: string;
  help: string;
  kinds: readonly ServerForm['kind'][];
  multiline?: boolean;
  secret?: boolean;
}

/** A launch setting's field, as its row in the launch settings table gives it. */
function launchField(key: TextSettingKey): TextField {
  const { label, help, kinds } = launchSetting(key).field;
  return { key, label, help, kinds };
}

/** The text fields in the order the view shows them; the launch settings' words come from their table. */
export const TEXT_FIELDS: TextField[] = [
  {
    key: 'url',
    label: 'Server URL',
    help: 'Base URL of the running server, e.g. http://10.0.0.5:8000.',
    kinds: ['attach'],
  },
  {
    key: 'executable',
    label: 'vllm executable',
    help: 'Leave empty to use vllm from PATH, or give the full path inside a venv.',
    kinds: ['vllm-native'],
  },
  { key: 'dockerImage', label: 'Image tag', help: 'vllm/vllm-openai tag.', kinds: ['vllm-docker'] },
  {
    key: 'customCommand',
    label: 'Command',
    help: 'One argument per line; it is started directly, never through a shell.',
    kinds: ['custom'],
    multiline: true,
  },
  {
    key: 'model',
    label: 'Model',
    help: 'Hugging Face id or a local folder. For the simulator, the model name it reports.',
    kinds: ['simulator', 'vllm-native', 'vllm-docker', 'attach'],
  },
  launchField('servedModelName'),
  {
    key: 'simProfile',
    label: 'Simulated GPU profile',
    help: 'A built-in GPU and model profile the simulator behaves like.',
    kinds: ['simulator'],
  },
  launchField('maxModelLen'),
  launchField('gpuMemoryUtilization'),
  launchField('maxNumSeqs'),
  launchField('maxNumBatchedTokens'),
  launchField('tensorParallelSize'),
  launchField('dtype'),
  launchField('quantization'),
  launchField('kvCacheDtype'),
  launchField('revision'),
  {
    key: 'host',
    label: 'Host',
    help: 'Address the server listens on.',
    kinds: ['simulator', 'vllm-native', 'vllm-docker'],
  },
  {
    key: 'apiKey',
    label: 'API key',
    help: 'Sent as a bearer token; never saved, always shown as <redacted>.',
    kinds: ['simulator', 'vllm-native', 'vllm-docker', 'custom', 'attach'],
    secret: true,
  },
  {
    key: 'gpus',
    label: 'GPUs',
    help: 'CUDA_VISIBLE_DEVICES, e.g. 0,1. Empty: all.',
    kinds: ['vllm-native', 'vllm-docker', 'custom'],
  },
  {
    key: 'extraEnv',
    label: 'Extra environment',
    help: 'KEY=VALUE per line (HF_HOME, VLLM_*).',
    kinds: ['vllm-native', 'vllm-docker', 'custom'],
    multiline: true,
  },
  {
    key: 'extraArgs',
    label: 'Extra arguments',
    help: 'One per line, passed through untouched.',
    kinds: ['vllm-native', 'vllm-docker'],
    multiline: true,
  },
  {
    key: 'simFlags',
    label: 'Simulator switches',
    help: 'Extra sim flags, one per line, e.g. --sim-loop-after 200 (see: speedmatrix sim serve --help).',
    kinds: ['simulator'],
    multiline: true,
  },
];

/**
 * Each field's problem in a preview error: the core writes one line per bad field, each beginning
 * with the field's label, so every bad field is marked at once.
 */
export function errorsByField(error: string | null, kind: ServerForm['kind']): Partial<Record<TextKey, string>> {
  const out: Partial<Record<TextKey, string>> = {};
  for (const line of error?.split('\n') ?? []) {
    const f = TEXT_FIELDS.find(
      (x) => x.kinds.includes(kind) && (line.startsWith(`${x.label}:`) || line.startsWith(`${x.label} `)),
    );
    if (f && !out[f.key]) out[f.key] = line;
  }
  return out;
}
