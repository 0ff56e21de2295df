/** The Server form as typed -> the supervisor's launch options, table-driven. */
import { describe, expect, it } from 'vitest';
import { ServerFormSchema } from '../../../src-shared/ipc/contract';
import { FORM_DEFAULTS, formToLaunch } from '../../../src-main/core/server-form';
import { buildLaunch } from '../../../src-main/server';

const form = (patch: Record<string, unknown>) => ServerFormSchema.parse({ ...FORM_DEFAULTS, ...patch });

describe('formToLaunch', () => {
  it.each([
    ['256k', 262144],
    ['256K', 262144],
    ['262,144', 262144],
    ['32768', 32768],
  ])('reads max model length %s as %d tokens', (text, tokens) => {
    const r = formToLaunch(form({ maxModelLen: text }), 8000);
    expect(r.ok && r.data.maxModelLen).toBe(tokens);
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

  it('passes the simulator its speed, load time and switches as separate arguments', () => {
    const r = formToLaunch(form({ simSpeed: 20, simLoadSeconds: 1, simFlags: '--sim-loop-after 10\n--sim-loop-contexts 8K' }), 9001);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.data).toMatchObject({ engineKind: 'simulator', port: 9001, simSpeed: 20, simArgs: ['--sim-load-seconds', '1', '--sim-loop-after', '10', '--sim-loop-contexts', '8K'] });
    expect(buildLaunch(r.data).display).toMatch(/^speedmatrix sim serve microsoft\/Fara1\.5-4B .*--sim-speed 20 --sim-load-seconds 1 --sim-loop-after 10/);
  });

  it('splits a docker image into image and tag, and custom commands into argv without a shell', () => {
    const d = formToLaunch(form({ kind: 'vllm-docker', dockerImage: 'registry.local:5000/vllm/vllm-openai:v0.11.0' }), 8000);
    expect(d.ok && [d.data.dockerImage, d.data.dockerTag]).toEqual(['registry.local:5000/vllm/vllm-openai', 'v0.11.0']);
    const c = formToLaunch(form({ kind: 'custom', customCommand: 'llama-server\n-m\nmodel with spaces.gguf; rm -rf /' }), 8000);
    expect(c.ok && c.data.customArgv).toEqual(['llama-server', '-m', 'model with spaces.gguf; rm -rf /']);
  });

  it('keeps the API key out of the preview text', () => {
    const r = formToLaunch(form({ kind: 'vllm-native', apiKey: 'sk-very-secret' }), 8000);
    expect(r.ok).toBe(true);
    if (r.ok) expect(buildLaunch(r.data).display).not.toContain('sk-very-secret');
  });
});
