/** Helpers for tests that start scripted fake servers and fake GPU tools. */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import type { LaunchOptions } from '../../../src-main/engine/server/launch';
import { ROOT } from '../paths';

export const FAKE_VLLM = join(ROOT, 'tests/helpers/fake-servers/fake-vllm.cjs');
export const FAKE_BIN = join(ROOT, 'tests/helpers/fake-bin');
export const FAKE_NVIDIA_SMI = join(FAKE_BIN, 'nvidia-smi');

/** A port the OS says is free right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
}

/** Launch options that run the fake vLLM with a scenario (a 'custom' launch, argv as typed). */
export function fakeVllmLaunch(
  port: number,
  scenario: string,
  extra: string[] = [],
  o: Partial<LaunchOptions> = {},
): LaunchOptions {
  const model = o.model ?? 'org/fake-model';
  return {
    engineKind: 'custom',
    customArgv: [
      process.execPath,
      FAKE_VLLM,
      'serve',
      model,
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--fake-scenario',
      scenario,
      ...extra,
    ],
    model,
    host: '127.0.0.1',
    port,
    ...o,
  };
}

/** Whether a process is alive: signal 0 probes without touching it; a zombie (dead, not yet reaped) counts as gone. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true;
  }
}
