/** The Server form as typed -> the supervisor's launch options, table-driven. */
import { describe, expect, it } from 'vitest';
import { ServerFormSchema } from '#shared/ipc/forms';
import { FORM_DEFAULTS, formToLaunch, formWarnings } from '../../../src-main/hosts/app-core/server-form';
import { buildLaunch } from '../../../src-main/engine/server';

const form = (patch: Record<string, unknown>) => ServerFormSchema.parse({ ...FORM_DEFAULTS, ...patch });

describe('formToLaunch', () => {
  // vLLM's rule (vllm/utils/argparse_utils.py human_readable_int): k decimal, K binary.
  it.each([
    ['256k', 256000],
    ['256K', 262144],
    ['25.6k', 25600],
    ['1M', 1048576],
    ['262,144', 262144],
    ['32768', 32768],
  ])('reads max model length %s as %d tokens, as vLLM does, and the launch line carries the number', (text, tokens) => {
    const r = formToLaunch(form({ kind: 'vllm-native', maxModelLen: text }), 8000);
    expect(r.ok && r.data.maxModelLen).toBe(tokens);
    if (r.ok) expect(buildLaunch(r.data).argv).toContain(String(tokens));
  });

  it('refuses decimals with a binary suffix, as vLLM does', () => {
    const r = formToLaunch(form({ maxModelLen: '25.6K' }), 8000);
    expect(!r.ok && r.error).toMatch(
      /not a token count; write it like 262144, 256K \(= 262,144\) or 256k \(= 256,000\)/,
    );
  });

  it.each([
    [{ maxModelLen: 'lots' }, /Max model length: "lots" is not a token count/],
    [{ gpuMemoryUtilization: '1.5' }, /GPU memory utilization: "1.5" must be a number from 0.01 to 1/],
    [{ maxNumSeqs: '2.5' }, /Max sequences: "2.5" must be a whole number/],
    [{ model: '  ' }, /Model: give a Hugging Face id/],
    [{ kind: 'custom', customCommand: '' }, /Command: give the command/],
    [{ kind: 'vllm-native', extraEnv: 'HF_HOME' }, /Extra environment: "HF_HOME" is not KEY=VALUE/],
  ])('says what is wrong with %o', (patch, message) => {
    const r = formToLaunch(form(patch), 8000);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(message);
  });

  it('finds every bad field at once, one line each, the KV cache dtype choices included', () => {
    const r = formToLaunch(
      form({
        kind: 'vllm-native',
        gpuMemoryUtilization: '1.5',
        maxModelLen: '256kk',
        maxNumSeqs: '-3',
        kvCacheDtype: 'fp9',
      }),
      8000,
    );
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.split('\n').map((l) => l.split(':')[0])).toEqual([
      'Max model length',
      'GPU memory utilization',
      'Max sequences',
      'KV cache dtype',
    ]);
    expect(r.error).toMatch(/KV cache dtype: "fp9" is not one of vLLM's choices: auto, bfloat16, fp8,/);
    expect(formToLaunch(form({ kind: 'vllm-native', kvCacheDtype: 'fp8_e4m3' }), 8000).ok).toBe(true);
    // The simulator passes the flag through as it is.
    expect(formToLaunch(form({ kvCacheDtype: 'fp9' }), 8000).ok).toBe(true);
  });

  it('passes the simulator its speed, load time and switches as separate arguments', () => {
    const r = formToLaunch(
      form({ simSpeed: 20, simLoadSeconds: 1, simFlags: '--sim-loop-after 10\n--sim-loop-contexts 8K' }),
      9001,
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({
      engineKind: 'simulator',
      port: 9001,
      simSpeed: 20,
      simArgs: ['--sim-load-seconds', '1', '--sim-loop-after', '10', '--sim-loop-contexts', '8K'],
    });
    expect(buildLaunch(r.data).display).toMatch(
      /^speedmatrix sim serve microsoft\/Fara1\.5-4B .*--sim-speed 20 --sim-load-seconds 1 --sim-loop-after 10/,
    );
  });

  it('splits a docker image into image and tag, and custom commands into argv without a shell', () => {
    const d = formToLaunch(
      form({ kind: 'vllm-docker', dockerImage: 'registry.local:5000/vllm/vllm-openai:v0.11.0' }),
      8000,
    );
    expect(d.ok && [d.data.dockerImage, d.data.dockerTag]).toEqual(['registry.local:5000/vllm/vllm-openai', 'v0.11.0']);
    const c = formToLaunch(
      form({ kind: 'custom', customCommand: 'llama-server\n-m\nmodel with spaces.gguf; rm -rf /' }),
      8000,
    );
    expect(c.ok && c.data.customArgv).toEqual(['llama-server', '-m', 'model with spaces.gguf; rm -rf /']);
  });

  it('keeps the API key out of the preview text', () => {
    const r = formToLaunch(form({ kind: 'vllm-native', apiKey: 'sk-very-secret' }), 8000);
    expect(r.ok).toBe(true);
    if (r.ok) expect(buildLaunch(r.data).display).not.toContain('sk-very-secret');
  });
});

describe('formWarnings: before launching', () => {
  it('spells out a size written with k or K', () => {
    expect(formWarnings(form({ kind: 'vllm-native', maxModelLen: '32k' }))).toEqual([
      'Max model length 32k is 32,000 tokens (vLLM reads k as 1,000 and K as 1,024); the launch line gives the exact number.',
    ]);
    expect(formWarnings(form({ kind: 'vllm-native', maxModelLen: '32768' }))).toEqual([]);
  });

  it('--attention-backend on an image older than 0.13 goes into VLLM_ATTENTION_BACKEND, and says so', () => {
    const old = form({
      kind: 'vllm-docker',
      dockerImage: 'vllm/vllm-openai:v0.11.0',
      maxModelLen: '',
      extraArgs: '--attention-backend\nFLASHINFER',
    });
    const r = formToLaunch(old, 8000);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    const b = buildLaunch(r.data);
    expect(b.argv).not.toContain('--attention-backend');
    expect(b.env.VLLM_ATTENTION_BACKEND).toBe('FLASHINFER');
    expect(b.argv).toEqual(expect.arrayContaining(['-e', 'VLLM_ATTENTION_BACKEND']));
    expect(formWarnings(old)).toEqual([
      '--attention-backend needs vLLM 0.13 or newer; for v0.11.0 it is passed as VLLM_ATTENTION_BACKEND=FLASHINFER instead.',
    ]);
    const now = form({
      kind: 'vllm-docker',
      dockerImage: 'vllm/vllm-openai:v0.13.0',
      maxModelLen: '',
      extraArgs: '--attention-backend=FLASHINFER',
    });
    const n = formToLaunch(now, 8000);
    expect(n.ok && buildLaunch(n.data).argv.slice(-2)).toEqual(['--attention-backend', 'FLASHINFER']);
    expect(formWarnings(now)).toEqual([]);
  });

  it('a flag newer than the image, with no older spelling: choose a newer image', () => {
    const f = form({
      kind: 'vllm-docker',
      dockerImage: 'vllm/vllm-openai:v0.9.2',
      maxModelLen: '',
      extraArgs: '-dcp\n4',
    });
    expect(formWarnings(f)).toEqual([
      '-dcp needs vLLM 0.10.2 or newer, and this launch runs v0.9.2: choose a newer image.',
    ]);
    expect(
      formWarnings(
        form({ kind: 'vllm-docker', dockerImage: 'vllm/vllm-openai:latest', maxModelLen: '', extraArgs: '-dcp\n4' }),
      ),
    ).toEqual([]);
  });
});
