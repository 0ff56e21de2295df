/**
 * Where the server runs decides whose hardware the session records and whether this
 * machine's GPU is sampled. Hosts are judged by address and by what names resolve to here;
 * the hardware file is real `speedmatrix hw --json` output.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { isThisMachine, serverPlacement } from '../../../src-main/workflows/orchestrator/placement';
import {
  hardwareOfServer,
  readHardwareFile,
  REMOTE_NOT_RECORDED,
} from '../../../src-main/workflows/orchestrator/server-hardware';
import type { Hardware } from '#shared/session/schema';
import { ROOT } from '../../helpers/paths';
import { startSim } from '../../helpers/sim';

const attachLaunch = {
  kind: 'attach' as const,
  url: null,
  argv: [],
  env: {},
  display: '',
  model: null,
  servedModel: null,
  revision: null,
  maxModelLen: null,
};
const target = (baseUrl: string, simulated = false) => ({ baseUrl, simulated, launch: attachLaunch });

describe('is the server on this machine', () => {
  it('loopback, "any", localhost, this host’s name and its own interface addresses are this machine', async () => {
    const own = Object.values(networkInterfaces())
      .flatMap((l) => l ?? [])
      .map((i) => i.address);
    for (const h of ['127.0.0.1', '127.0.1.1', '::1', '0.0.0.0', 'localhost', 'LOCALHOST', hostname(), ...own])
      expect(await isThisMachine(h), h).toBe(true);
  });

  it('other addresses, and names that do not resolve here, are remote', async () => {
    for (const h of ['192.0.2.10', '10.255.255.1', '2001:db8::1', 'gpu-box.invalid'])
      expect(await isThisMachine(h), h).toBe(false);
  });

  it('a simulator is "simulated" wherever it listens; a launched server is on this machine', async () => {
    expect(await serverPlacement(target('http://192.0.2.10:8000', true))).toBe('simulated');
    expect(
      await serverPlacement({
        ...target('http://192.0.2.10:8000'),
        launch: { ...attachLaunch, kind: 'vllm-native', argv: ['vllm', 'serve', 'm'] },
      }),
    ).toBe('this-machine');
    expect(await serverPlacement(target('http://[::1]:8000'))).toBe('this-machine');
    expect(await serverPlacement(target('http://192.0.2.10:8000'))).toBe('remote');
  });
});

describe('whose hardware the session records', () => {
  const local: Hardware = {
    gpuType: 'Discrete GPU',
    gpus: [],
    cpu: { model: 'Laptop CPU', cores: 8, threads: 16 },
    ramBytes: 16e9,
    os: { platform: 'darwin', distro: null, release: null, kernel: null, arch: 'arm64' },
    notes: [],
  };
  const detectLocal = async () => local;

  it('remote: not recorded (never this machine’s CPU, RAM or OS), unless given', async () => {
    const hw = await hardwareOfServer('remote', target('http://192.0.2.10:8000'), { detectLocal });
    expect(hw).toEqual({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [REMOTE_NOT_RECORDED] });
    const given = { ...local, cpu: { model: 'Server CPU', cores: 64, threads: 128 } };
    expect(await hardwareOfServer('remote', target('http://192.0.2.10:8000'), { detectLocal, given })).toBe(given);
  });

  it('this machine: detected here', async () => {
    expect(await hardwareOfServer('this-machine', target('http://127.0.0.1:8000'), { detectLocal })).toBe(local);
  });

  it('a simulator by URL: the GPU its profile names (from its /version), labelled simulated, nothing of this machine', async () => {
    const sim = await startSim({ profile: 'h200-8b-bf16' });
    try {
      const hw = await hardwareOfServer('simulated', target(sim.url, true), { detectLocal, given: local });
      expect(hw?.gpuType).toBe('Simulated GPU');
      expect(hw?.gpus.map((g) => [g.name, g.vendor])).toEqual([['NVIDIA H200 (simulated)', 'simulated']]);
      expect(hw?.gpus[0].vramBytes).toBe(Math.round(139.8 * 1024 ** 3));
      expect([hw?.cpu, hw?.ramBytes, hw?.os]).toEqual([null, null, null]);
    } finally {
      await sim.stop();
    }
  }, 60_000);
});

describe('a hardware file', () => {
  it('takes `speedmatrix hw --json` output as written on the other host', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-hw-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'hw.json');
    writeFileSync(
      file,
      execFileSync(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), 'hw', '--json'], { encoding: 'utf8' }),
    );
    const r = await readHardwareFile(file);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.data.os?.platform).toBe(process.platform);
  }, 60_000);

  it('says which field is wrong, or that the file is not JSON', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-hw-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'a.json'), '{"gpus": [{"index": -1}]}');
    writeFileSync(join(dir, 'b.json'), 'nvidia-smi output');
    const a = await readHardwareFile(join(dir, 'a.json'));
    expect(!a.ok && a.error).toMatch(/not what `speedmatrix hw --json` writes: gpus\.0\.index/);
    const b = await readHardwareFile(join(dir, 'b.json'));
    expect(!b.ok && b.error).toMatch(/is not JSON/);
    const c = await readHardwareFile(join(dir, 'none.json'));
    expect(!c.ok && c.error).toMatch(/Cannot read the hardware file/);
  });
});
