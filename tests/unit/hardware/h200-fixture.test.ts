/**
 * The whole H200 fixture host, replayed: GPUs from its nvidia-smi captures (through the fake
 * nvidia-smi, which answers from them), CPU/RAM/OS from its systeminformation.json.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  appleGpusFromSi,
  detectNvidia,
  parseLspciDisplays,
  systemFromSi,
} from '../../../src-main/platform/hardware/detect';
import { formatHardware } from '../../../src-main/platform/hardware/format-hw';
import type { Hardware } from '#shared/session/schema';
import { FAKE_NVIDIA_SMI } from '../../helpers/fake-servers';
import { H200_FIXTURES } from '../../helpers/paths';

describe('the H200 fixture host', () => {
  it('prints the Hardware block right', async () => {
    const si = JSON.parse(readFileSync(join(H200_FIXTURES, 'systeminformation.json'), 'utf8'));
    delete process.env.FAKE_NVIDIA_SMI_SCENARIO;
    const seen: string[] = [];
    const gpus = await detectNvidia(FAKE_NVIDIA_SMI, 10_000, seen);
    const hw: Hardware = { gpuType: 'Discrete GPU', gpus, ...systemFromSi(si.cpu, si.mem, si.osInfo), notes: [] };
    expect(seen).toEqual(['nvidia-smi: 1 GPU(s)']);
    expect(formatHardware(hw)).toBe(
      [
        'Hardware',
        '  Type:                Discrete GPU',
        '  GPU:                 H200',
        '  VRAM:                140 GB',
        '  OS:                  linux',
        '  Driver:              580.159.04',
        '  CUDA:                13.0',
        '  Compute capability:  9.0',
        '  Power limit:         700 W',
        '  GPU bus:             0: 00000000:00:06.0',
        '  CPU:                 Intel Xeon® Processor (16 cores, 16 threads)',
        '  RAM:                 126 GB',
        '  OS version:          Ubuntu 24.04.3 LTS kernel 6.18.44-fc-v657-gpu x64',
        '',
      ].join('\n'),
    );
    // systeminformation alone would have been wrong: its "vram" is the free memory, and it has no driver.
    expect(si.graphics.controllers[0].vram * 1024 ** 2).toBeLessThan(gpus[0].vramBytes!);
  });
});

describe('other machines, from what systeminformation and lspci report', () => {
  it('Apple silicon: an integrated GPU sharing system memory', () => {
    const ram = 64 * 1024 ** 3;
    const gpus = appleGpusFromSi(
      [
        { vendor: 'Apple', model: 'Apple M2 Max' },
        { vendor: 'Intel', model: 'UHD 630' },
      ],
      ram,
    );
    expect(gpus).toEqual([
      {
        index: 0,
        vendor: 'apple',
        name: 'Apple M2 Max',
        uuid: null,
        vramBytes: ram,
        driver: null,
        cuda: null,
        computeCapability: null,
        powerLimitWatts: null,
        busId: null,
      },
    ]);
    const hw: Hardware = {
      gpuType: 'Integrated GPU',
      gpus,
      cpu: null,
      ramBytes: ram,
      os: { platform: 'darwin', distro: 'macOS', release: '15.1', kernel: null, arch: 'arm64' },
      notes: [],
    };
    expect(formatHardware(hw)).toMatch(
      /^Hardware\n  Type: +Integrated GPU\n  GPU: +Apple M2 Max\n  VRAM: +64 GB\n  OS: +darwin\n/,
    );
  });

  it('lspci display controllers', () => {
    expect(
      parseLspciDisplays(
        '00:02.0 VGA compatible controller: Cirrus Logic GD 5446\n00:03.0 Ethernet controller: Red Hat virtio\n65:00.0 3D controller: NVIDIA Corporation GH100 [H200 SXM 141GB] (rev a1)\n',
      ),
    ).toEqual([
      'VGA compatible controller: Cirrus Logic GD 5446',
      '3D controller: NVIDIA Corporation GH100 [H200 SXM 141GB] (rev a1)',
    ]);
  });
});
