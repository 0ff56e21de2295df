import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { launchOptionsFromCommand } from '../../../src-main/engine/server/command-line';
import { buildLaunch } from '../../../src-main/engine/server/launch';
import {
  endLeftovers,
  findLeftovers,
  parseProcStat,
  parsePsOutput,
  processTree,
} from '../../../src-main/engine/server/orphans';
import { isPortFree } from '../../../src-main/engine/server/port';
import { alive, freePort } from '../../helpers/fake-servers';

describe('process table parsing', () => {
  it('/proc/PID/stat with spaces and parentheses in the name', () => {
    expect(parseProcStat('4242 (VLLM::Worker (TP0)) S 1 4200 4200 0 -1 4194304 ...')).toEqual({
      pid: 4242,
      comm: 'VLLM::Worker (TP0)',
      state: 'S',
      ppid: 1,
      pgid: 4200,
    });
    expect(parseProcStat('garbage')).toBeNull();
  });
  it('ps output', () => {
    expect(
      parsePsOutput('  101     1   101 Ss   vllm serve m --port 8000\n  102   101   101 Z    [python] <defunct>\n'),
    ).toEqual([
      { pid: 101, ppid: 1, pgid: 101, state: 'S', command: 'vllm serve m --port 8000' },
      { pid: 102, ppid: 101, pgid: 101, state: 'Z', command: '[python] <defunct>' },
    ]);
  });
});

describe('leftovers of a process group', () => {
  it('finds a group member that outlived its leader, and ends it', async () => {
    // Leader (own group) starts a child, then the leader exits: the child is an orphan of the group.
    const leader = spawn(
      process.execPath,
      [
        '-e',
        "require('child_process').spawn(process.execPath, ['-e', 'setTimeout(()=>{}, 30000)', 'orphan-marker'], {stdio:'ignore'}); setTimeout(()=>process.exit(0), 200)",
      ],
      { detached: true, stdio: 'ignore' },
    );
    const pgid = leader.pid!;
    await new Promise((r) => leader.once('exit', r));
    const { found, unchecked } = await findLeftovers(pgid, [], { nvidiaSmi: '/nonexistent/nvidia-smi' });
    expect(unchecked).toBeNull();
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      command: expect.stringContaining('orphan-marker'),
      seenIn: 'process-table',
      gpuMemoryBytes: null,
    });
    expect(await endLeftovers(pgid, found, 3000, { nvidiaSmi: '/nonexistent/nvidia-smi' })).toEqual({
      found: [],
      unchecked: null,
    });
    expect(alive(found[0].pid)).toBe(false);
  });

  it('processTree follows children by parent link', async () => {
    // The parent prints its child's pid once it is spawned (a fixed wait is too short on a loaded machine).
    const p = spawn(
      process.execPath,
      [
        '-e',
        "const c = require('child_process').spawn(process.execPath, ['-e','setTimeout(()=>{},5000)'],{stdio:'ignore', detached:true}); console.log(c.pid); setTimeout(()=>{},5000)",
      ],
      { detached: true, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const childPid = Number(await new Promise<string>((r) => p.stdout!.once('data', (d) => r(String(d)))));
    const tree = await processTree(p.pid!);
    expect(tree.map((t) => t.pid).sort()).toEqual([p.pid!, childPid].sort());
    for (const t of tree) process.kill(t.pid, 'SIGKILL');
  });
});

describe('isPortFree', () => {
  it('free, then busy while something listens', async () => {
    const port = await freePort();
    expect(await isPortFree('127.0.0.1', port)).toBe(true);
    const s = createServer();
    await new Promise<void>((r) => s.listen(port, '127.0.0.1', r));
    try {
      expect(await isPortFree('127.0.0.1', port)).toBe(false);
      expect(await isPortFree('0.0.0.0', port)).toBe(false);
    } finally {
      s.close();
    }
  });
});

describe('launchOptionsFromCommand (speedmatrix serve -- CMD)', () => {
  it('vllm serve: argv untouched; host, port, model, key and served name read from it', () => {
    const o = launchOptionsFromCommand(
      [
        'vllm',
        'serve',
        'Qwen/Qwen3-8B',
        '--port=9001',
        '--host',
        '0.0.0.0',
        '--api-key',
        'k',
        '--served-model-name',
        'q',
        '-q',
        'fp8',
        '--max-model-len',
        '32768',
      ],
      {},
    );
    expect(o).toMatchObject({
      engineKind: 'custom',
      customArgv: [
        'vllm',
        'serve',
        'Qwen/Qwen3-8B',
        '--port=9001',
        '--host',
        '0.0.0.0',
        '--api-key',
        'k',
        '--served-model-name',
        'q',
        '-q',
        'fp8',
        '--max-model-len',
        '32768',
      ],
      model: 'Qwen/Qwen3-8B',
      host: '0.0.0.0',
      port: 9001,
      apiKey: 'k',
      servedModelName: 'q',
      quantization: 'fp8',
      maxModelLen: 32768,
    });
  });
  it('python -m entrypoint with --model; key from VLLM_API_KEY; default port 8000', () => {
    const o = launchOptionsFromCommand(['python', '-m', 'vllm.entrypoints.openai.api_server', '--model', '/m/x'], {
      VLLM_API_KEY: 'envkey',
    });
    expect(o).toMatchObject({ model: '/m/x', port: 8000, host: '0.0.0.0', apiKey: 'envkey' });
  });
  it('docker run -p maps the host port', () => {
    const o = launchOptionsFromCommand(
      [
        'docker',
        'run',
        '--gpus',
        'all',
        '-v',
        '/hf:/root/.cache/huggingface',
        '-p',
        '127.0.0.1:8100:8000',
        'vllm/vllm-openai:v0.11.0',
        'Qwen/Qwen3-8B',
      ],
      {},
    );
    expect(o).toMatchObject({ host: '127.0.0.1', port: 8100, model: 'Qwen/Qwen3-8B' });
  });
  it('speedmatrix sim serve ...: a simulator launch, sim flags passed through', () => {
    const o = launchOptionsFromCommand(
      [
        'speedmatrix',
        'sim',
        'serve',
        'fara',
        '--host',
        '127.0.0.1',
        '--port',
        '8123',
        '--api-key=k9',
        '--sim-speed',
        '5',
        '--max-model-len',
        '64k',
      ],
      {},
    );
    expect(o).toMatchObject({
      engineKind: 'simulator',
      model: 'fara',
      port: 8123,
      host: '127.0.0.1',
      apiKey: 'k9',
      extraArgs: ['--sim-speed', '5', '--max-model-len', '64k'],
    });
    const b = buildLaunch(o);
    expect(b.argv[0]).toBe(process.execPath);
    expect(b.display).toBe(
      "speedmatrix sim serve fara --host 127.0.0.1 --port 8123 --api-key '<redacted>' --sim-speed 5 --max-model-len 64k",
    );
    expect(buildLaunch(launchOptionsFromCommand(['sim', 'serve', '--port', '9000'], {})).display).toBe(
      'speedmatrix sim serve --host 127.0.0.1 --port 9000',
    );
    // The last --port wins, as with argparse.
    expect(launchOptionsFromCommand(['vllm', 'serve', 'm', '--port', '1', '--port=2'], {}).port).toBe(2);
  });
  it('errors', () => {
    expect(() => launchOptionsFromCommand([], {})).toThrow(/no server command given/);
    expect(() => launchOptionsFromCommand(['vllm', 'serve', 'm', '--port', 'abc'], {})).toThrow(/is not a TCP port/);
  });
});
