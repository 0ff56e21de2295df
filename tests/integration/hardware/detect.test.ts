import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { detectHardware } from '../../../src-main/platform/hardware/detect';
import { formatHardware } from '../../../src-main/platform/hardware/format-hw';
import { HardwareSchema } from '#shared/session/schema';
import { FAKE_BIN } from '../../helpers/fake-servers';
import { ROOT } from '../../helpers/paths';

const run = promisify(execFile);
const realPath = process.env.PATH;

/** Detect with the fake nvidia-smi first on PATH, playing `scenario`. */
async function detectWith(scenario: string, timeoutMs = 10_000) {
  process.env.PATH = `${FAKE_BIN}:${realPath}`;
  process.env.FAKE_NVIDIA_SMI_SCENARIO = scenario;
  return detectHardware({ timeoutMs });
}

describe('detectHardware with a fake nvidia-smi on PATH', () => {
  beforeEach(() => {
    process.env.PATH = realPath;
  });
  afterEach(() => {
    process.env.PATH = realPath;
    delete process.env.FAKE_NVIDIA_SMI_SCENARIO;
  });

  it('the H200 capture: every fact nvidia-smi knows, CPU/RAM/OS from systeminformation', async () => {
    const r = await detectWith('h200');
    expect(r.noGpuMessage).toBeNull();
    expect(r.hardware.gpuType).toBe('Discrete GPU');
    expect(r.hardware.gpus).toEqual([
      {
        index: 0,
        vendor: 'nvidia',
        name: 'NVIDIA H200',
        uuid: 'GPU-44554bc3-4124-a088-eacf-1fa8b4a6e604',
        vramBytes: 143771 * 1024 * 1024,
        driver: '580.159.04',
        cuda: '13.0',
        computeCapability: '9.0',
        powerLimitWatts: 700,
        busId: '00000000:00:06.0',
      },
    ]);
    expect(r.hardware.cpu?.threads).toBeGreaterThan(0);
    expect(r.hardware.ramBytes).toBeGreaterThan(1e9);
    expect(r.hardware.os?.platform).toBe(process.platform);
    expect(HardwareSchema.parse(r.hardware)).toEqual(r.hardware);
    const text = formatHardware(r.hardware);
    expect(text.split('\n').slice(0, 5).join('\n')).toMatch(
      /^Hardware\n  Type: +Discrete GPU\n  GPU: +H200\n  VRAM: +140 GB\n  OS: +linux$/,
    );
    expect(text).toMatch(/\n  Compute capability: +9\.0\n/);
  });

  it('several GPUs', async () => {
    const r = await detectWith('multi');
    expect(
      r.hardware.gpus.map((g) => [g.index, g.name, g.computeCapability, g.vramBytes! / 1024 ** 2, g.powerLimitWatts]),
    ).toEqual([
      [0, 'NVIDIA H100 80GB HBM3', '9.0', 81559, 700],
      [1, 'NVIDIA H100 80GB HBM3', '9.0', 81559, 700],
      [2, 'NVIDIA A100-SXM4-40GB', '8.0', 40960, 400],
      [3, 'NVIDIA A100-SXM4-40GB', '8.0', 40960, 400],
    ]);
    expect(formatHardware(r.hardware)).toMatch(
      /\n  GPU: +2 x H100 80GB HBM3 \+ 2 x A100-SXM4-40GB\n  VRAM: +2 x 80 GB \+ 2 x 40 GB\n/,
    );
  });

  it('[N/A] values become null', async () => {
    const g = (await detectWith('na-brackets')).hardware.gpus[0];
    expect([g.powerLimitWatts, g.busId, g.vramBytes]).toEqual([null, null, 143771 * 1024 * 1024]);
  });

  it('[Not Supported] values become null (old Tesla)', async () => {
    const g = (await detectWith('not-supported')).hardware.gpus[0];
    expect([g.name, g.powerLimitWatts, g.computeCapability]).toEqual(['Tesla K80', null, '3.7']);
  });

  it('bare N/A values become null', async () => {
    const g = (await detectWith('bare-na')).hardware.gpus[0];
    expect([g.uuid, g.powerLimitWatts]).toEqual([null, null]);
  });

  it('an old driver that rejects compute_cap (exit 2) still gives the GPU, without compute capability', async () => {
    const r = await detectWith('old-driver');
    expect(r.hardware.gpus[0]).toMatchObject({
      name: 'NVIDIA H200',
      computeCapability: null,
      cuda: '11.0',
      vramBytes: 143771 * 1024 * 1024,
    });
    expect(r.seen.join('\n')).toMatch(/compute_cap: exit 2 \(Field "compute_cap" is not a valid field to query.\)/);
    expect(r.hardware.notes.join('\n')).toMatch(/compute capability unknown/);
  });

  it('a header with no CUDA field: CUDA version from nvidia-smi -q', async () => {
    const r = await detectWith('no-cuda-header');
    expect(r.hardware.gpus[0].cuda).toBe('12.2');
  });

  it('a hanging nvidia-smi is given up at the deadline, without blocking', async () => {
    const t0 = Date.now();
    let ticks = 0;
    const tick = setInterval(() => ticks++, 100);
    const r = await detectWith('hang', 1500);
    clearInterval(tick);
    expect(Date.now() - t0).toBeLessThan(8000);
    expect(ticks).toBeGreaterThan(5); // the event loop kept running
    expect(r.hardware.gpus).toEqual([]);
    expect(r.seen).toContain('nvidia-smi: no answer within 1.5 s (driver hung?)');
    expect(r.noGpuMessage).toMatch(/^No supported GPU found/);
  });

  it('AMD GPUs via amd-smi static --json (no NVIDIA)', async () => {
    process.env.FAKE_AMD_SMI = 'mi300x';
    try {
      const r = await detectWith('no-gpu');
      expect(r.noGpuMessage).toBeNull();
      expect(r.hardware.gpus).toEqual(
        [0, 1].map((i) => ({
          index: i,
          vendor: 'amd',
          name: 'AMD Instinct MI300X',
          uuid: `0x6F1F0A2B3C4D5E6${i}`,
          vramBytes: 196592 * 1024 ** 2,
          driver: '6.10.5',
          cuda: null,
          computeCapability: 'gfx942',
          powerLimitWatts: 750,
          busId: `0000:8${i}:00.0`,
        })),
      );
      expect(formatHardware(r.hardware)).toMatch(
        /\n  GPU: +2 x Instinct MI300X\n  VRAM: +2 x 192 GB\n  OS: +linux\n  Driver: +6\.10\.5\n  GPU target: +gfx942\n/,
      );
      expect(r.seen).toContain('amd-smi: 2 GPU(s)');
    } finally {
      delete process.env.FAKE_AMD_SMI;
    }
  });

  it('a driver nvidia-smi cannot talk to: no GPU, and says why', async () => {
    const r = await detectWith('no-gpu');
    expect(r.noGpuMessage).toMatch(/No supported GPU found.*nvidia-smi: exit 9 \(NVIDIA-SMI has failed/);
  });
});

describe('speedmatrix hw (CLI, separate process)', () => {
  const bin = join(ROOT, 'src-main/hosts/cli/bin.cjs');

  it('on this machine (no GPU): says no supported GPU found next to what it saw', async () => {
    const env = {
      ...process.env,
      PATH: (realPath ?? '')
        .split(':')
        .filter((d) => !d.includes('fake-bin'))
        .join(':'),
    };
    const { stdout } = await run(process.execPath, [bin, 'hw', '--json'], { env, cwd: ROOT });
    const j = JSON.parse(stdout);
    const hasSmi = await run('sh', ['-c', 'command -v nvidia-smi'], { env }).then(
      () => true,
      () => false,
    );
    if (hasSmi) {
      expect(j.hardware.gpus.length).toBeGreaterThan(0);
    } else {
      expect(j.hardware.gpus).toEqual([]);
      expect(j.noGpuMessage).toMatch(/^No supported GPU found .*; (systeminformation saw|nvidia-smi)/);
      expect(j.seen).toContain('nvidia-smi: not installed');
      const text = (await run(process.execPath, [bin, 'hw'], { env, cwd: ROOT })).stdout;
      expect(text).toMatch(/^Hardware\n  Type: +No supported GPU\n  GPU: +none found\n  OS: +linux\n/);
      expect(text).toMatch(/\n  Note: +No supported GPU found/);
    }
    expect(HardwareSchema.parse(j.hardware)).toEqual(j.hardware);
    expect(j.hardware.cpu.threads).toBeGreaterThan(0);
  });

  it('with no GPU it answers (a driver nvidia-smi cannot talk to) points to run --demo after the block', async () => {
    const env = { ...process.env, PATH: `${FAKE_BIN}:${realPath}`, FAKE_NVIDIA_SMI_SCENARIO: 'no-gpu' };
    const { stdout } = await run(process.execPath, [bin, 'hw'], { env, cwd: ROOT });
    expect(stdout).toMatch(/^Hardware\n  Type: +No supported GPU\n/);
    expect(stdout).toMatch(
      /\n\nNo GPU here to benchmark: `speedmatrix run --demo` tries SpeedMatrix against its simulated vLLM server, and `speedmatrix run --url URL` measures a server on another machine\.\n$/,
    );
    const json = JSON.parse((await run(process.execPath, [bin, 'hw', '--json'], { env, cwd: ROOT })).stdout);
    expect(json.noGpuMessage).toMatch(/^No supported GPU found/);
  });

  it('with the fake nvidia-smi on PATH (H200 capture) prints the H200 block', async () => {
    const env = { ...process.env, PATH: `${FAKE_BIN}:${realPath}`, FAKE_NVIDIA_SMI_SCENARIO: 'h200' };
    const { stdout } = await run(process.execPath, [bin, 'hw'], { env, cwd: ROOT });
    expect(stdout).toMatch(
      /^Hardware\n  Type: +Discrete GPU\n  GPU: +H200\n  VRAM: +140 GB\n  OS: +linux\n  Driver: +580\.159\.04\n  CUDA: +13\.0\n/,
    );
  });
});
