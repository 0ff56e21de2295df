/**
 * The app start's check for servers an earlier, killed SpeedMatrix launched: the core lists
 * those still running (from the same state file the CLI writes) and ends the one asked for.
 * A real detached process group stands for the leftover server.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { LaunchedRegistry } from '../../../src-main/engine/server/launched-registry';
import { findGroupProcesses } from '../../../src-main/engine/server/orphans';

describe('leftover launched servers at app start', () => {
  it('lists the ones still running whose launcher is gone, and ends the one asked for', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sm-core-left-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    const serversDir = join(dir, 'shared');
    const server = spawn('sleep', ['60'], { detached: true, stdio: 'ignore' });
    const launcher = spawn('true', [], { stdio: 'ignore' });
    await new Promise((r) => launcher.on('exit', r));
    new LaunchedRegistry(serversDir).add({
      pgid: server.pid!,
      command: 'vllm serve Qwen/Qwen3-8B --port 8000',
      port: 8000,
      startedAt: new Date().toISOString(),
      launcherPid: launcher.pid!,
      launcherStart: null,
    });
    const core = createAppCore({
      host: 'bridge',
      dataDir: dir,
      launchedServersDir: serversDir,
      detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    });
    try {
      const listed = await core.invoke('server:leftovers', []);
      expect(listed).toEqual({
        ok: true,
        data: [
          {
            pid: server.pid,
            command: expect.stringMatching(
              /^process group \d+, port 8000, started .*: vllm serve Qwen\/Qwen3-8B --port 8000$/,
            ),
            gpuMemoryBytes: null,
            origin: 'killed-run',
          },
        ],
      });
      const ended = await core.invoke('server:end-orphans', [[server.pid!]]);
      expect(ended.ok && ended.data.map((o) => o.pid)).toEqual([server.pid]);
      expect(await findGroupProcesses(server.pid!)).toEqual([]);
      expect(await core.invoke('server:leftovers', [])).toEqual({ ok: true, data: [] });
    } finally {
      await core.dispose();
    }
  });
});
