/**
 * The installed app, as far as this machine can build it: electron-builder's unpacked Linux
 * target (`dir`, what the AppImage and deb wrap) from the built out/, with a placeholder Electron
 * folder (electronDist) whose binary carries Electron's fuse wire, so the fuses are really
 * flipped. The test reads app.asar with @electron/asar (what is in, what is not), reads the
 * fuses back with @electron/fuses, then boots the packaged main process from the extracted
 * tree against the electron stand-in (whose child_process guard ends any spawn of its own binary
 * as Node, as the RunAsNode fuse does): it starts the simulated server and a benchmark worker
 * from inside the package and measures one cell, exports it, runs a sweep (compared, published
 * as a site) and a load run. Needs `npm run build` first.
 */
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { extractAll, extractFile, listPackage } from '@electron/asar';
import { FuseV1Options, getCurrentFuseWire } from '@electron/fuses';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { standinSshTest, standinTest } from '../../helpers/fixtures';
import { freePort } from '../../../src-main/engine/server/port';
import { type MainProcess, startSimulatorServer } from './electron-standin/boot';
import { ROOT } from '../../helpers/paths';

/** Electron's fuse sentinel and a v1 wire of 8 fuses set as Electron 45 ships them (RunAsNode, …, GrantFileProtocolExtraPrivileges). */
const FUSE_WIRE = Buffer.concat([
  Buffer.from('dL7pKGdnNz796PbbjQWNKmHXBZaB9tsX'),
  Buffer.from([1, 8]),
  Buffer.from('10110001'),
]);

/** electron-builder's `dir` target with a placeholder Electron, into `out`; resolves with its log. */
function buildUnpacked(electronDist: string, out: string): Promise<{ code: number | null; log: string }> {
  const cli = join(ROOT, 'node_modules/electron-builder/cli.js');
  return new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      [
        cli,
        '--dir',
        '--linux',
        '--x64',
        '--publish',
        'never',
        `-c.electronDist=${electronDist}`,
        `-c.directories.output=${out}`,
      ],
      { cwd: ROOT, env: { ...process.env, CSC_IDENTITY_AUTO_DISCOVERY: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    child.stdout.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr.on('data', (d: Buffer) => (log += d.toString()));
    child.on('close', (code) => resolve({ code, log }));
  });
}

type Cell = {
  concurrency: number;
  clientHealth?: { threads?: number };
  status: string;
  totalTokensPerSecond: number | null;
  completedRequests: number | null;
};

const it = standinTest;

/** Runs `call` (an invoke that opens a file dialog) and answers that dialog as the person would. */
async function throughDialog<T>(
  m: MainProcess,
  call: () => Promise<T>,
  answer: { canceled: false; filePath: string } | { canceled: false; filePaths: string[] },
): Promise<T> {
  const before = (await m.state()).fileDialogs.length;
  const result = call();
  await m.waitFor(
    (s) => s.fileDialogs.length > before && s.fileDialogs.some((d) => d.answer === null),
    'a file dialog',
  );
  await m.call('answer', { kind: 'file', answer });
  return result;
}
type Invoke = <T = unknown>(channel: string, args?: unknown[]) => Promise<{ ok: boolean; error?: string; data: T }>;

/**
 * A trace replayed from the Load form in the packaged app: picked in the file dialog, read at
 * once, replayed in a worker as one pass; a path the person did not pick is refused.
 */
async function replaysTrace(m: MainProcess, invoke: Invoke): Promise<void> {
  const file = join(ROOT, 'tests/fixtures/traces/two-prefix-groups.jsonl');
  const form = {
    rates: [],
    sweep: false,
    sweepPoints: 8,
    arrivals: 'poisson',
    maxInFlight: null,
    durationSeconds: 4,
    warmupSeconds: 1,
    inputLen: '128',
    outputLen: '16',
    slo: '',
  };
  const refused = await invoke('load:start', [{ ...form, trace: { file, speed: 4 } }]);
  expect(refused.ok).toBe(false);
  expect(refused.error).toMatch(/^Nothing replayed: SpeedMatrix reads only trace files you chose/);
  const chosen = await throughDialog(m, () => invoke<{ requests: number }>('load:choose-trace'), {
    canceled: false,
    filePaths: [file],
  });
  expect(chosen.ok, chosen.error).toBe(true);
  expect(chosen.data.requests).toBe(12);
  const started = await invoke('load:start', [{ ...form, trace: { file, speed: 4 } }]);
  expect(started.ok, started.error).toBe(true);
  type Load = { phase: string; run: number; error: string | null; results: { pass: string; completed: number }[] };
  let view = (await invoke<Load>('load:snapshot')).data;
  for (let i = 0; i < 600 && view.phase === 'running'; i++) {
    await new Promise((r) => setTimeout(r, 100));
    view = (await invoke<Load>('load:snapshot')).data;
  }
  expect(view).toMatchObject({ phase: 'done', error: null });
  expect(view.results.map((r) => [r.pass, r.completed])).toEqual([['trace', 12]]);
}

let work = '';
let unpacked = '';
let asarFiles: string[] = [];

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'out/main/index.js'))) throw new Error('out/ is missing: run `npm run build` first.');
  work = mkdtempSync(join(tmpdir(), 'speedmatrix-packaged-'));
  const dist = join(work, 'electron-dist');
  mkdirSync(join(dist, 'resources'), { recursive: true });
  writeFileSync(
    join(dist, 'electron'),
    Buffer.concat([Buffer.from('#!/bin/sh\necho placeholder Electron >&2\nexit 1\n'), FUSE_WIRE]),
  );
  chmodSync(join(dist, 'electron'), 0o755);
  writeFileSync(join(dist, 'version'), '45.5.0');
  writeFileSync(join(dist, 'LICENSE'), '');
  const r = await buildUnpacked(dist, join(work, 'dist'));
  if (r.code !== 0) throw new Error(`electron-builder failed (${r.code}):\n${r.log}`);
  unpacked = join(work, 'dist', 'linux-unpacked');
  asarFiles = listPackage(join(unpacked, 'resources', 'app.asar'), { isPack: false }).map((f) => f.replace(/\\/g, '/'));
}, 600_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('the unpacked Linux app', () => {
  it('is named speedmatrix, and app.asar holds the built app and only the packages main loads', () => {
    expect(existsSync(join(unpacked, 'speedmatrix'))).toBe(true);
    for (const f of [
      '/out/main/index.js',
      '/out/main/bench-worker.js',
      '/out/main/sim.js',
      '/out/preload/index.js',
      '/out/renderer/index.html',
      '/package.json',
      '/node_modules/zod/package.json',
      '/node_modules/undici/package.json',
      '/node_modules/systeminformation/package.json',
    ])
      expect(asarFiles, f).toContain(f);
    const packages = new Set(
      asarFiles.map((f) => /^\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(f)?.[1]).filter(Boolean),
    );
    expect([...packages].sort()).toEqual(['systeminformation', 'undici', 'zod']);
    const unwanted = asarFiles.filter(
      (f) => /^\/(src-|tests|scripts|resources|docs)/.test(f) || /\.(ts|tsx|map)$/.test(f) || f === '/out/main/cli.js',
    );
    expect(unwanted.filter((f) => !f.startsWith('/node_modules/'))).toEqual([]);
    // The packages' TypeScript sources and maps (zod's, some 3.8 MB) are never loaded: left out.
    expect(asarFiles.filter((f) => f.startsWith('/node_modules/') && /\.([mc]?ts|tsx|map)$/.test(f))).toEqual([]);
    expect(asarFiles).toContain('/node_modules/zod/index.js');
    const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { build: { productName: string } };
    expect(pkg.build.productName).toBe('SpeedMatrix');
  });

  it('its fuses: not runnable as Node, no NODE_OPTIONS, no --inspect, the app only from app.asar, asar integrity checked, no extra file:// privileges', async () => {
    const wire = await getCurrentFuseWire(join(unpacked, 'speedmatrix'));
    const on = (f: FuseV1Options) => String.fromCharCode(wire[f] as number);
    expect(on(FuseV1Options.EnableNodeOptionsEnvironmentVariable)).toBe('0');
    expect(on(FuseV1Options.EnableNodeCliInspectArguments)).toBe('0');
    expect(on(FuseV1Options.OnlyLoadAppFromAsar)).toBe('1');
    expect(on(FuseV1Options.EnableEmbeddedAsarIntegrityValidation)).toBe('1');
    expect(on(FuseV1Options.RunAsNode)).toBe('0');
    expect(on(FuseV1Options.GrantFileProtocolExtraPrivileges)).toBe('0');
  });

  it('its package.json has what the deb and the Linux desktop entry need: a homepage, the desktop file’s name', () => {
    const pkg = JSON.parse(extractFile(join(unpacked, 'resources', 'app.asar'), 'package.json').toString('utf8')) as {
      homepage?: string;
      desktopName?: string;
    };
    expect(pkg.homepage).toMatch(/^https:\/\//);
    // Electron names the window's class after it on Linux, so the desktop entry (speedmatrix.desktop) owns the window.
    expect(pkg.desktopName).toBe('speedmatrix.desktop');
  });

  it('booted from the extracted app.asar: the simulator and a benchmark worker start from inside the package and measure a cell; each export but PDF is written where the dialog says', async ({
    bootMain,
    tempDir,
  }) => {
    const app = join(tempDir('speedmatrix-packaged-'), 'app');
    extractAll(join(unpacked, 'resources', 'app.asar'), app);
    const m = bootMain({ main: join(app, 'out/main/index.js'), cwd: app, env: { STANDIN_PACKAGED: '1' } });
    // At 4 times real time, the 60 s readiness deadline of a cell of 300 streams is 15 s of a loaded machine's time.
    const started = await startSimulatorServer(m, 4);
    expect(started.state, started.log.join('\n')).toBe('ready');
    // The simulated server runs the package's own sim.js as a utility process of main, and its
    // engine process (which renames itself VLLM::EngineCore, as vLLM's does) runs from that same
    // file beside it, watching it: main started both, as the RunAsNode fuse leaves no other way.
    const sim = join(app, 'out/main/sim.js');
    const utility = (await m.state()).utilityProcesses.filter((u) => u.modulePath === sim);
    expect(utility.map((u) => u.args[0])).toEqual(['serve', 'engine-core']);
    const ps = execFileSync('ps', ['-eo', 'pid=,ppid=,args='], { encoding: 'utf8' })
      .split('\n')
      .map((l) => /^\s*(\d+)\s+(\d+)\s+(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({ pid: m[1], ppid: m[2], args: m[3] }));
    const serve = ps.find((p) => p.args.includes(`${sim} serve `));
    expect(serve, 'the simulated server from the package').toBeDefined();
    expect(utility[1].args).toEqual(['engine-core', '--parent-pid', serve!.pid]);
    expect(ps.filter((p) => p.ppid === serve!.ppid).map((p) => p.args)).toContain('VLLM::EngineCore');
    // 300 requests at once are read by two worker threads of the benchmark worker, each the package's stream-shard.js.
    const form = {
      contexts: [0],
      concurrency: [1, 300],
      prefillContexts: [],
      secondsPerMeasurement: 8,
      maxOutputTokens: 256,
      tokenTargeting: 'estimate',
    };
    expect(await m.call('invoke', { channel: 'run:start', args: [form] })).toMatchObject({ ok: true });
    const run = async () =>
      (await m.call<{ data: { phase: string } }>('invoke', { channel: 'run:snapshot' })).data.phase;
    for (let i = 0; i < 600 && !['done', 'cancelled', 'failed'].includes(await run()); i++)
      await new Promise((r) => setTimeout(r, 100));
    const s = await m.call<{ data: { session: { cells: Cell[] } } }>('invoke', { channel: 'session:get' });
    // Measured: a figure from completed requests. Its status (valid, or a verdict such as queued on
    // a loaded machine) is the engine's business, tested elsewhere.
    const cells = s.data.session.cells;
    expect(cells.map((c) => c.concurrency)).toEqual([1, 300]);
    for (const cell of cells) {
      expect(['error', 'cancelled', 'skipped'], JSON.stringify(cell)).not.toContain(cell.status);
      expect(cell.totalTokensPerSecond).toBeGreaterThan(0);
      expect(cell.completedRequests).toBeGreaterThan(0);
    }
    expect(cells.map((c) => c.clientHealth?.threads)).toEqual([undefined, 2]);
    const workers = (await m.state()).utilityProcesses.filter((u) => u.modulePath !== sim);
    expect(workers.map((w) => w.modulePath)).toEqual([join(app, 'out/main/bench-worker.js')]);
    // Each export but PDF (printToPDF needs the binary), written where the save dialog says.
    const out = tempDir('speedmatrix-packaged-exports-');
    for (const [format, ext, says] of [
      ['markdown', '.md', /^# /m],
      ['html', '.html', /^<!doctype html>/i],
      ['csv', '.csv', /^context,/],
      ['jsonl', '.jsonl', /^\{"context":0,/],
    ] as const) {
      const file = join(out, `matrix${ext}`);
      const r = await throughDialog(
        m,
        () => m.call<{ ok: boolean; error?: string }>('invoke', { channel: 'report:export', args: [format, null] }),
        { canceled: false, filePath: file },
      );
      expect(r, format).toMatchObject({ ok: true, data: { file } });
      expect(readFileSync(file, 'utf8'), format).toMatch(says);
    }
    expect(await m.call('invoke', { channel: 'server:stop' })).toMatchObject({ ok: true });
  }, 180_000);

  it('booted from the extracted app.asar: a sweep measures, opens as a comparison and a results site; a load run measures; each benchmark worker a utility process of main', async ({
    bootMain,
    tempDir,
  }) => {
    const app = join(tempDir('speedmatrix-packaged-'), 'app');
    extractAll(join(unpacked, 'resources', 'app.asar'), app);
    const m = bootMain({ main: join(app, 'out/main/index.js'), cwd: app, env: { STANDIN_PACKAGED: '1' } });
    await m.waitFor((s) => s.windows.length > 0, 'the window');
    type Answer<T> = { ok: boolean; error?: string; data: T };
    const invoke = <T>(channel: string, args: unknown[] = []) => m.call<Answer<T>>('invoke', { channel, args });
    // The sweep folder, chosen in the folder dialog as the page asks for it.
    const folder = tempDir('speedmatrix-packaged-sweep-');
    const chosen = invoke<string>('sweep:choose-dir');
    await m.waitFor((s) => s.fileDialogs.some((d) => d.answer === null), 'the folder dialog');
    await m.call('answer', { kind: 'file', answer: { canceled: false, filePaths: [folder] } });
    expect((await chosen).ok).toBe(true);
    const run = {
      contexts: [0],
      concurrency: [1],
      secondsPerMeasurement: 10,
      maxOutputTokens: 256,
      tokenTargeting: 'estimate',
    };
    const server = { kind: 'simulator', model: 'sim', simSpeed: 20, simLoadSeconds: 0 };
    const started = await invoke<{ dir: string }>('sweep:start', [
      { server, axes: [{ flag: '--max-model-len', values: '8192' }], run, dir: folder },
    ]);
    expect(started.ok, started.error).toBe(true);
    type Sweep = { phase: string; message: string; variants: { state: string; failure: string | null }[] };
    let sweep = (await invoke<Sweep>('sweep:snapshot')).data;
    for (let i = 0; i < 900 && !['done', 'failed', 'cancelled'].includes(sweep.phase); i++) {
      await new Promise((r) => setTimeout(r, 100));
      sweep = (await invoke<Sweep>('sweep:snapshot')).data;
    }
    expect(sweep.variants, sweep.message).toMatchObject([{ state: 'done', failure: null }]);
    expect(sweep.message).toMatch(/^Sweep done: 1 of 1 variants measured/);
    const worker = join(app, 'out/main/bench-worker.js');
    const workers = async () => (await m.state()).utilityProcesses.filter((u) => u.modulePath === worker).length;
    expect(await workers()).toBe(1);
    // The load client: in a worker too, after a server of its own.
    expect((await startSimulatorServer(m)).state).toBe('ready');
    const load = await invoke('load:start', [
      {
        rates: [4],
        sweep: false,
        sweepPoints: 8,
        arrivals: 'constant',
        maxInFlight: null,
        durationSeconds: 4,
        warmupSeconds: 1,
        inputLen: '128',
        outputLen: '16',
        slo: '',
      },
    ]);
    expect(load.ok, load.error).toBe(true);
    type Load = { phase: string; error: string | null; results: { targetRate: number; completed: number }[] };
    let view = (await invoke<Load>('load:snapshot')).data;
    for (let i = 0; i < 600 && view.phase === 'running'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      view = (await invoke<Load>('load:snapshot')).data;
    }
    expect(view).toMatchObject({ phase: 'done', error: null });
    expect(view.results.map((r) => r.targetRate)).toEqual([4]);
    expect(view.results[0].completed).toBeGreaterThan(0);
    expect(await workers()).toBe(2);
    await replaysTrace(m, invoke);
    expect(await workers()).toBe(3);
    expect(m.stderr()).not.toMatch(/RunAsNode fuse is off/);
    // The sweep's folder as a comparison, exported; then the folder as a results site.
    const sweepDir = started.data.dir;
    type Comparison = { entries: unknown[] };
    const compared = await invoke<Comparison>('compare:open-sweep', [sweepDir]);
    expect(compared.ok, compared.error).toBe(true);
    const comparisonFile = join(tempDir('speedmatrix-packaged-compare-'), 'comparison.md');
    const exported = await throughDialog(m, () => invoke<{ file: string }>('compare:export', ['markdown']), {
      canceled: false,
      filePath: comparisonFile,
    });
    expect(exported.ok, exported.error).toBe(true);
    expect(readFileSync(exported.data.file, 'utf8')).toMatch(/^# /m);
    const siteDir = tempDir('speedmatrix-packaged-site-');
    const site = await throughDialog(m, () => invoke<{ index: string; runs: number }>('site:publish', [sweepDir]), {
      canceled: false,
      filePaths: [siteDir],
    });
    expect(site.ok, site.error).toBe(true);
    expect(site.data.runs).toBeGreaterThanOrEqual(1);
    expect(readFileSync(site.data.index, 'utf8')).toMatch(/<html/i);
    expect(await m.call('invoke', { channel: 'server:stop' })).toMatchObject({ ok: true });
  }, 240_000);

  standinSshTest(
    'booted from the extracted app.asar: a simulator on a remote host over the real sshd, a matrix measured there; ssh options that run programs refused',
    async ({ bootMain, tempDir, sshHost }) => {
      const app = join(tempDir('speedmatrix-packaged-'), 'app');
      extractAll(join(unpacked, 'resources', 'app.asar'), app);
      const m = bootMain({ main: join(app, 'out/main/index.js'), cwd: app, env: { STANDIN_PACKAGED: '1' } });
      await m.waitFor((s) => s.windows.length > 0, 'the window');
      type Answer<T> = { ok: boolean; error?: string; data: T };
      const invoke = <T>(channel: string, args: unknown[] = []) => m.call<Answer<T>>('invoke', { channel, args });
      const marker = join(tempDir('speedmatrix-packaged-proxy-'), 'ran');
      const base = {
        kind: 'simulator',
        model: 'sim',
        where: 'ssh',
        sshHost: sshHost.host,
        simSpeed: 20,
        simLoadSeconds: 0,
      };
      const refused = await invoke('server:start', [{ ...base, sshOptions: `ProxyCommand=touch ${marker}` }]);
      expect(refused.error).toMatch(/^SSH options: "ProxyCommand=touch .*" is not taken from the app/);
      expect(existsSync(marker)).toBe(false);
      type Snapshot = { state: string; failure?: { message: string } | null };
      const snapshot = async () => (await invoke<Snapshot>('server:snapshot')).data;
      // The port is free here when picked, but the host's serve checks it seconds later, while other test files
      // start servers: a port taken meanwhile is refused there ("already in use; nothing was started"), so pick again.
      let started: Snapshot = { state: 'not started' };
      for (let attempt = 0; attempt < 3; attempt++) {
        const port = await freePort();
        const answer = await invoke('server:start', [{ ...base, port, sshOptions: sshHost.options.join('\n') }]);
        expect(answer.ok, answer.error).toBe(true);
        for (let i = 0; i < 600 && (await snapshot()).state === 'starting'; i++)
          await new Promise((r) => setTimeout(r, 100));
        started = await snapshot();
        if (!/already in use/.test(started.failure?.message ?? '')) break;
      }
      const log = (await invoke<string[]>('server:log')).data.slice(-10);
      expect(started.state, JSON.stringify({ failure: started.failure, log })).toBe('ready');
      const form = {
        contexts: [0],
        concurrency: [1],
        secondsPerMeasurement: 10,
        maxOutputTokens: 256,
        tokenTargeting: 'estimate',
      };
      expect(await invoke('run:start', [form])).toMatchObject({ ok: true });
      const phase = async () => (await invoke<{ phase: string }>('run:snapshot')).data.phase;
      for (let i = 0; i < 900 && !['done', 'cancelled', 'failed'].includes(await phase()); i++)
        await new Promise((r) => setTimeout(r, 100));
      expect(await phase()).toBe('done');
      const s = await invoke<{ session: { cells: Cell[] } }>('session:get');
      expect(s.data.session.cells.map((c) => [c.concurrency, (c.completedRequests ?? 0) > 0])).toEqual([[1, true]]);
      // Measured there: no benchmark worker ran here.
      expect((await m.state()).utilityProcesses.filter((u) => u.modulePath.endsWith('bench-worker.js'))).toEqual([]);
      expect(await invoke('server:stop')).toMatchObject({ ok: true });
    },
    300_000,
  );
});
