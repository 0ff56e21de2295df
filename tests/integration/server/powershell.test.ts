/**
 * The Server form on Windows and macOS: a note before launching what cannot run on this OS
 * (pointing to Attach to URL), and the launch command copied as PowerShell on Windows.
 */
import { describe, expect, it } from 'vitest';
import { CoreEvents } from '../../../src-main/hosts/app-core/emitter';
import { ServerControl } from '../../../src-main/hosts/app-core/server-control';
import { FORM_DEFAULTS } from '../../../src-main/hosts/app-core/server-form';
import { localLaunchNote } from '../../../src-main/engine/server/platform-support';
import { displayAsPowerShell, powershellLine, powershellQuote } from '../../../src-main/engine/server/powershell';
import { shellLine } from '#shared/shell-quote';

describe('PowerShell quoting', () => {
  it('leaves plain words, single-quotes what PowerShell reads specially', () => {
    expect(
      ['vllm', '--port', '8000', 'Qwen/Qwen3-8B', 'C:\\venv\\Scripts\\vllm.exe', '--gpu-memory-utilization=0.9'].map(
        powershellQuote,
      ),
    ).toEqual([
      'vllm',
      '--port',
      '8000',
      'Qwen/Qwen3-8B',
      'C:\\venv\\Scripts\\vllm.exe',
      '--gpu-memory-utilization=0.9',
    ]);
    expect(powershellQuote("it's")).toBe("'it''s'");
    expect(powershellQuote('it\u2019s')).toBe("'it\u2019\u2019s'");
    expect(powershellQuote('$(Remove-Item x)')).toBe("'$(Remove-Item x)'");
    expect(powershellQuote('0,1')).toBe("'0,1'");
    expect(powershellQuote('@args')).toBe("'@args'");
    expect(powershellQuote('a;b')).toBe("'a;b'");
    expect(powershellQuote('`n')).toBe("'`n'");
    expect(powershellQuote('{"a": 1}')).toBe('\'{"a": 1}\'');
    expect(powershellQuote('--%')).toBe("'--%'");
    expect(powershellQuote('')).toBe("''");
  });

  it('environment as $env: assignments, a quoted program through the call operator', () => {
    expect(
      powershellLine(['C:\\Program Files\\vllm\\vllm.exe', 'serve', 'm'], {
        CUDA_VISIBLE_DEVICES: '0,1',
        VLLM_API_KEY: '<redacted>',
      }),
    ).toBe(
      "$env:CUDA_VISIBLE_DEVICES = '0,1'; $env:VLLM_API_KEY = '<redacted>'; & 'C:\\Program Files\\vllm\\vllm.exe' serve m",
    );
  });

  it('turns the displayed launch line into the same words for PowerShell', () => {
    const display = shellLine(
      ['vllm', 'serve', 'Qwen/Qwen3-8B', '--served-model-name', "o'brien model", '--port', '8000'],
      { CUDA_VISIBLE_DEVICES: '0,1', HF_HOME: 'C:\\hf cache' },
    );
    expect(displayAsPowerShell(display)).toBe(
      "$env:CUDA_VISIBLE_DEVICES = '0,1'; $env:HF_HOME = 'C:\\hf cache'; vllm serve Qwen/Qwen3-8B --served-model-name 'o''brien model' --port 8000",
    );
  });
});

describe('what a local launch can do on each OS', () => {
  it('Windows: vLLM native and in Docker get a note pointing to Attach to URL; the simulator and custom commands none', () => {
    expect(localLaunchNote('vllm-native', 'win32')).toBe(
      'vLLM does not run natively on Windows, so it cannot be launched here (only inside WSL 2). Run vLLM on a Linux GPU machine and benchmark it from here with "Attach to URL" (in the CLI: speedmatrix run --url).',
    );
    expect(localLaunchNote('vllm-docker', 'win32')).toMatch(
      /^vLLM's Docker image needs NVIDIA GPUs under Linux: on Windows only Docker Desktop with the WSL 2 backend .*"Attach to URL"/,
    );
    expect(localLaunchNote('simulator', 'win32')).toBeNull();
    expect(localLaunchNote('custom', 'win32')).toBeNull();
  });
  it('macOS: no GPU vLLM; Linux: no note', () => {
    expect(localLaunchNote('vllm-native', 'darwin')).toMatch(/^vLLM has no GPU support on macOS .*"Attach to URL"/);
    expect(localLaunchNote('vllm-docker', 'darwin')).toMatch(/^Docker on macOS has no access to NVIDIA GPUs/);
    for (const k of ['vllm-native', 'vllm-docker', 'simulator', 'custom', 'attach'] as const)
      expect(localLaunchNote(k, 'linux')).toBeNull();
  });
});

describe('the Server form preview carries the note and the PowerShell line', () => {
  const form = {
    ...FORM_DEFAULTS,
    kind: 'vllm-native' as const,
    model: 'Qwen/Qwen3-8B',
    gpus: '0,1',
    apiKey: 'sk-test-abcdef123456',
    port: 8000,
  };
  it('on Windows', async () => {
    const p = await new ServerControl(new CoreEvents(), { platform: 'win32' }).preview(form);
    expect(p.platformNote).toBe(localLaunchNote('vllm-native', 'win32'));
    expect(p.powershell).toBe(displayAsPowerShell(p.display));
    expect(p.powershell).toMatch(
      /^\$env:CUDA_VISIBLE_DEVICES = '0,1'; \$env:VLLM_API_KEY = '<redacted>'; .*vllm serve Qwen\/Qwen3-8B .*--port 8000/,
    );
    expect(p.powershell).not.toContain('sk-test-abcdef123456');
  });
  it('on macOS and Linux: no PowerShell; the note on macOS only', async () => {
    const mac = await new ServerControl(new CoreEvents(), { platform: 'darwin' }).preview(form);
    expect(mac.powershell).toBeNull();
    expect(mac.platformNote).toBe(localLaunchNote('vllm-native', 'darwin'));
    const linux = await new ServerControl(new CoreEvents(), { platform: 'linux' }).preview(form);
    expect([linux.powershell, linux.platformNote]).toEqual([null, null]);
  });
});

describe('a running server on Windows', () => {
  it('its snapshot carries the running command as PowerShell, for Copy while it runs', async () => {
    const control = new ServerControl(new CoreEvents(), { platform: 'win32', stopTimeoutMs: 5000 });
    try {
      const snap = await control.start({
        ...FORM_DEFAULTS,
        kind: 'simulator',
        simSpeed: 20,
        simLoadSeconds: 0.2,
        port: null,
      });
      expect(snap.display).toMatch(/^speedmatrix sim serve /);
      expect(snap.powershell).toBe(displayAsPowerShell(snap.display));
      expect(snap.powershell).toMatch(/^speedmatrix sim serve /);
    } finally {
      await control.stop();
    }
  }, 60_000);
});
