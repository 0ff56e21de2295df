/**
 * What the page may make main do on this machine, driven through the app core as the Electron host
 * builds it (no write paths from the page, a confirmation before a command the page wrote): ssh
 * options that run programs are refused, an approval holds for the exact command only, and a
 * file is opened, compared or rewritten by a resume only when the person picked it.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type CommandToConfirm, createAppCore } from '../../../src-main/hosts/app-core';
import { createSession } from '../../../src-main/platform/session/create';
import { serializeSession } from '../../../src-main/platform/session/write';
import { noGpu, startSmallSim, until } from '../../helpers/core-sim';
import { coreTest as coreIt, type MakeCore } from '../../helpers/fixtures';

const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-page-trust-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The core as the app's main process builds it: the page names no file to write, commands are confirmed. */
function appCore(name: string, confirm: (commands: CommandToConfirm[]) => boolean = () => false) {
  return createAppCore({
    host: 'electron',
    dataDir: join(dir, name),
    detectHardware: noGpu,
    allowWritePaths: false,
    confirmCommands: async (_why, commands) => confirm(commands),
    stopTimeoutMs: 3000,
  });
}

describe('ssh options from the page', () => {
  it('refuses ProxyCommand for a host’s hardware and a simulator started there: nothing runs here, the field says why', async () => {
    const core = appCore('ssh-refused');
    const marker = join(dir, 'proxy-ran');
    const options = [`ProxyCommand=touch ${marker}`];
    const hw = await core.invoke('hardware:remote', [{ host: 'root@127.0.0.1', options }]);
    expect(hw).toMatchObject({ ok: false });
    if (!hw.ok)
      expect(hw.error).toMatch(
        /^SSH options: "ProxyCommand=touch .*" is not taken from the app; it passes on only Port, User/,
      );
    const d = await core.invoke('server:defaults', []);
    if (!d.ok) throw new Error(d.error);
    const form = { ...d.data, kind: 'simulator' as const, where: 'ssh' as const, sshHost: 'root@127.0.0.1' };
    const sshOptions = options.join('\n');
    const preview = await core.invoke('server:preview', [{ ...form, sshOptions }]);
    expect(!preview.ok && preview.error).toMatch(/^SSH options: "ProxyCommand=/);
    const started = await core.invoke('server:start', [{ ...form, sshOptions }]);
    expect(!started.ok && started.error).toMatch(/^SSH options: "ProxyCommand=/);
    for (const o of ['LocalCommand=touch x', 'Include=/tmp/x', 'PKCS11Provider=/tmp/x.so', 'ForwardAgent=yes']) {
      const r = await core.invoke('hardware:remote', [{ host: 'gpu-box', options: [o] }]);
      expect(!r.ok && r.error).toMatch(/^SSH options: .* is not taken from the app/);
    }
    await new Promise((r) => setTimeout(r, 300));
    expect(existsSync(marker)).toBe(false);
    await core.dispose();
  });

  it('passes the harmless options on to ssh as -o, before its own defaults', async () => {
    const argsFile = join(dir, 'ssh-argv');
    const fakeSsh = join(dir, 'fake-ssh');
    writeFileSync(
      fakeSsh,
      `#!/bin/sh\nprintf '%s\\n' "$@" > '${argsFile}'\necho 'ssh: connect: refused' >&2\nexit 255\n`,
    );
    chmodSync(fakeSsh, 0o755);
    const saved = process.env.SPEEDMATRIX_SSH;
    process.env.SPEEDMATRIX_SSH = fakeSsh;
    try {
      const core = appCore('ssh-passed');
      const options = ['Port=2222', 'User=bench', 'ConnectTimeout=5', 'StrictHostKeyChecking=accept-new'];
      const hw = await core.invoke('hardware:remote', [{ host: 'gpu-box', options }]);
      expect(!hw.ok && hw.error).toMatch(/could not connect to gpu-box/);
      const argv = readFileSync(argsFile, 'utf8').split('\n');
      expect(argv.slice(0, 10)).toEqual([
        ...['-o', 'Port=2222', '-o', 'User=bench', '-o', 'ConnectTimeout=5', '-o', 'StrictHostKeyChecking=accept-new'],
        ...['-o', 'BatchMode=yes'],
      ]);
      await core.dispose();
    } finally {
      if (saved === undefined) delete process.env.SPEEDMATRIX_SSH;
      else process.env.SPEEDMATRIX_SSH = saved;
    }
  });
});

describe('the command gate', () => {
  it('asks again when a secret in the environment differs, and never shows its value', async () => {
    const asked: CommandToConfirm[][] = [];
    const answers = [true, false];
    const core = appCore('gate', (commands) => {
      asked.push(commands);
      return answers[asked.length - 1] ?? false;
    });
    const d = await core.invoke('server:defaults', []);
    if (!d.ok) throw new Error(d.error);
    const first = join(dir, 'first-key-ran');
    const second = join(dir, 'second-key-ran');
    const form = (marker: string) => ({
      ...d.data,
      kind: 'custom' as const,
      customCommand: ['sh', '-c', 'eval "$RUN_KEY"'].join('\n'),
      extraEnv: `RUN_KEY=touch ${marker}`,
    });
    const started = await core.invoke('server:start', [form(first)]);
    expect(started.ok).toBe(true);
    await until(() => existsSync(first), 10_000);
    await until(() => asked.length === 1, 1000);
    await core.invoke('server:stop', []);
    const again = await core.invoke('server:start', [form(second)]);
    expect(again).toMatchObject({ ok: false, code: 'cancelled' });
    expect(asked).toHaveLength(2);
    for (const commands of asked) {
      expect(commands[0].env.RUN_KEY).toBe('<redacted>');
      expect(JSON.stringify({ ...commands[0], exact: undefined })).not.toContain('touch');
    }
    expect(existsSync(second)).toBe(false);
    await core.dispose();
  });
});

describe('resuming a session file', () => {
  it('refuses a path the page names that the person did not open, and leaves the file as it was', async () => {
    const core = appCore('resume');
    try {
      let state = '';
      core.on('server:state', (snap) => (state = snap.state));
      await startSmallSim(core, '16K');
      await until(() => state === 'ready', 30_000);
      const file = join(dir, 'elsewhere.speedmatrix.json');
      const text = serializeSession(createSession({ simulated: true }));
      writeFileSync(file, text);
      const r = await core.invoke('run:resume', [file]);
      expect(r).toMatchObject({ ok: false });
      if (!r.ok) expect(r.error).toMatch(/^Resume works on a session file you opened: open it first/);
      expect(readFileSync(file, 'utf8')).toBe(text);
    } finally {
      await core.dispose();
    }
  });
});

describe('opening a file the page names', () => {
  /** A valid session file, and the core as the app builds it with a dialog that answers `chosen`. */
  function setUp(makeCore: MakeCore, name: string, chosen: { open?: string; folder?: string; files?: string[] } = {}) {
    const file = join(dir, `${name}.speedmatrix.json`);
    writeFileSync(file, serializeSession(createSession({ simulated: true })));
    const core = makeCore({
      host: 'electron',
      dataDir: join(dir, name),
      detectHardware: noGpu,
      allowWritePaths: false,
      dialogs: {
        chooseOpenPath: async () => chosen.open ?? null,
        chooseSavePath: async () => null,
        chooseFolder: async () => chosen.folder ?? null,
        chooseOpenPaths: async () => chosen.files ?? null,
      },
    });
    return { file, core };
  }

  coreIt('refuses a session file the person did not pick, and opens nothing', async ({ makeCore }) => {
    const { file, core } = setUp(makeCore, 'unpicked');
    const r = await core.invoke('session:open', [file]);
    expect(r).toMatchObject({ ok: false });
    if (!r.ok)
      expect(r.error).toBe(
        `Nothing opened: SpeedMatrix opens only files you chose, and ${file} was not. Open it with File > Open or Open Recent, or drop it on the window.`,
      );
    expect(core.sessionMeta()).toMatchObject({ hasSession: false, file: null });
    const recent = await core.invoke('session:recent', []);
    expect(recent.ok && recent.data).toEqual([]);
    // So a resume cannot reach it through an open either.
    const resumed = await core.invoke('run:resume', [file]);
    expect(!resumed.ok && resumed.error).toMatch(/^Resume works on a session file you opened/);
  });

  coreIt(
    'opens a file picked in the dialog, again from the recent list, and one handed over by the OS or a drop',
    async ({ makeCore }) => {
      const { file, core } = setUp(makeCore, 'picked');
      const { file: other } = setUp(makeCore, 'handed-over');
      const { file: dialogFile } = setUp(makeCore, 'dialog');
      const viaDialog = makeCore({
        host: 'electron',
        dataDir: join(dir, 'picked'),
        detectHardware: noGpu,
        allowWritePaths: false,
        dialogs: { chooseOpenPath: async () => dialogFile, chooseSavePath: async () => null },
      });
      expect(await viaDialog.invoke('session:open', [])).toMatchObject({ ok: true, data: { file: dialogFile } });
      // The recent list the dialog's open wrote: the page may name that file again, in a later start.
      expect(await core.invoke('session:open', [dialogFile])).toMatchObject({ ok: true, data: { file: dialogFile } });
      expect(await core.invoke('session:open', [file])).toMatchObject({ ok: false });
      core.pick(other);
      expect(await core.invoke('session:open', [other])).toMatchObject({ ok: true, data: { file: other } });
    },
  );

  coreIt(
    'compares only what the person picked, and opens a compared file from the comparison',
    async ({ makeCore }) => {
      const { file: a, core } = setUp(makeCore, 'compare-a');
      const { file: b } = setUp(makeCore, 'compare-b');
      const named = await core.invoke('compare:open-sessions', [[a, b]]);
      expect(!named.ok && named.error).toMatch(
        /^Nothing opened: SpeedMatrix opens only files you chose, and .* was not/,
      );
      const sweep = await core.invoke('compare:open-sweep', [dir]);
      expect(!sweep.ok && sweep.error).toMatch(/^Nothing opened: .* Open it with Open sweep…/);
      core.pick(a);
      core.pick(b);
      const compared = await core.invoke('compare:open-sessions', [[a, b]]);
      expect(compared.ok).toBe(true);
      // Its files are the person's picks: "Open A in Results" works.
      expect(await core.invoke('session:open', [b])).toMatchObject({ ok: true, data: { file: b } });
    },
  );

  coreIt('publishes a site only from a folder of runs the person picked', async ({ makeCore }) => {
    const runs = join(dir, 'site-runs');
    const site = join(dir, 'site-out');
    const { core } = setUp(makeCore, 'site', { folder: site });
    mkdirSync(runs);
    const file = join(runs, 'one.speedmatrix.json');
    writeFileSync(file, serializeSession(createSession({ simulated: true })));
    const named = await core.invoke('site:publish', [runs]);
    expect(!named.ok && named.error).toMatch(/^Nothing opened: .* Open it with File > Publish Site…/);
    expect(existsSync(site)).toBe(false);
    core.pick(runs);
    const published = await core.invoke('site:publish', [runs]);
    expect(published).toMatchObject({ ok: true, data: { dir: site, runs: 1 } });
    expect(existsSync(file)).toBe(true);
  });

  coreIt('the CLI-like host (the test bridge) keeps opening any path it is given', async ({ makeCore }) => {
    const file = join(dir, 'bridge.speedmatrix.json');
    writeFileSync(file, serializeSession(createSession({ simulated: true })));
    const core = makeCore();
    expect(await core.invoke('session:open', [file])).toMatchObject({ ok: true, data: { file } });
  });
});
