/**
 * Launch options full of shell metacharacters reach the server process literally:
 * model, served name, extra args and environment values, through the app core's Server form
 * and through the Supervisor directly. A fake executable echoes the argv and environment it got.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createAppCore } from '../../../src-main/hosts/app-core';
import { buildLaunch } from '../../../src-main/engine/server/launch';
import { shellSplit } from '#shared/shell-quote';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { freePort } from '../../helpers/fake-servers';

const ECHO = join(__dirname, 'fixtures/echo-argv.cjs');
const dir = mkdtempSync(join(tmpdir(), 'speedmatrix-meta-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const marker = (n: string) => join(dir, `pwned-${n}`);

/** Each would create a marker file, expand, or split a word if a shell ever saw it. */
const HOSTILE = {
  model: `org/model; touch ${marker('model')}`,
  served: `$(touch ${marker('served')})`,
  args: [
    `--x=\`touch ${marker('tick')}\``,
    `a && touch ${marker('and')}`,
    `| tee ${marker('pipe')}`,
    `> ${marker('redir')}`,
    '*',
    '~',
    '$HOME',
    'it\'s "quoted"',
    'two\nlines',
    '{a,b}',
    '',
  ],
  env: { SM_META_A: `$(touch ${marker('env')})`, SM_META_B: '`id`; echo $PATH | cat *' },
};
const KEY = 'sk-META-KEY-7f3a9c';

async function echoed(file: string): Promise<{ argv: string[]; env: Record<string, string> }> {
  for (let i = 0; i < 200 && !existsSync(file); i++) await new Promise((r) => setTimeout(r, 100));
  return JSON.parse(readFileSync(file, 'utf8'));
}

function noMarkers(): void {
  expect(readdirMarkers()).toEqual([]);
}
function readdirMarkers(): string[] {
  return ['model', 'served', 'tick', 'and', 'pipe', 'redir', 'env'].filter((n) => existsSync(marker(n)));
}

describe('shell metacharacters in launch options', () => {
  it('Supervisor: argv and environment reach the process byte for byte, nothing is expanded or run', async () => {
    const out = join(dir, 'sup.json');
    const opts = {
      engineKind: 'vllm-native' as const,
      executable: ECHO,
      model: HOSTILE.model,
      servedModelName: HOSTILE.served,
      extraArgs: HOSTILE.args,
      extraEnv: { ...HOSTILE.env, ECHO_ARGV_OUT: out },
      apiKey: KEY,
      host: '127.0.0.1',
      port: await freePort(),
    };
    const built = buildLaunch(opts);
    const sup = new Supervisor();
    const r = await sup.start(opts, { readyTimeoutMs: 30_000, stopTimeoutMs: 2_000 });
    expect(r.ok).toBe(false); // it exits at once, after echoing
    await sup.stop();
    const got = await echoed(out);
    expect(got.argv).toEqual(built.argv.slice(1));
    expect(got.argv).toContain(HOSTILE.model);
    expect(got.argv).toContain(HOSTILE.served);
    for (const a of HOSTILE.args) expect(got.argv).toContain(a);
    expect(got.env.SM_META_A).toBe(HOSTILE.env.SM_META_A);
    expect(got.env.SM_META_B).toBe(HOSTILE.env.SM_META_B);
    // The key travels in the environment, never on the command line or in the preview.
    expect(got.env.VLLM_API_KEY).toBe(KEY);
    expect(got.argv.join(' ')).not.toContain(KEY);
    expect(built.display).not.toContain(KEY);
    // The preview line, pasted into a shell, gives back the same argv.
    expect(shellSplit(built.display).slice(-built.argv.length)).toEqual(built.argv);
    noMarkers();
  }, 60_000);

  it('the app core Server form: the same literal argv, and the preview and log never show the key', async () => {
    const out = join(dir, 'core.json');
    const core = createAppCore({
      host: 'bridge',
      dataDir: join(dir, 'app'),
      detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    });
    try {
      const d = await core.invoke('server:defaults', []);
      if (!d.ok) throw new Error(d.error);
      const form = {
        ...d.data,
        kind: 'vllm-native' as const,
        executable: ECHO,
        model: HOSTILE.model,
        servedModelName: HOSTILE.served,
        extraArgs: HOSTILE.args.filter((a) => !a.includes('\n') && a !== '').join('\n'),
        extraEnv: `SM_META_A=${HOSTILE.env.SM_META_A}\nSM_META_B=${HOSTILE.env.SM_META_B}\nECHO_ARGV_OUT=${out}`,
        apiKey: KEY,
        port: await freePort(),
      };
      const preview = await core.invoke('server:preview', [form]);
      expect(JSON.stringify(preview)).not.toContain(KEY);
      await core.invoke('server:start', [form]);
      const got = await echoed(out);
      expect(got.argv.slice(0, 2)).toEqual(['serve', HOSTILE.model]);
      expect(got.argv).toContain(HOSTILE.served);
      for (const a of HOSTILE.args.filter((x) => !x.includes('\n') && x !== '')) expect(got.argv).toContain(a);
      expect(got.env.SM_META_A).toBe(HOSTILE.env.SM_META_A);
      expect(got.env.SM_META_B).toBe(HOSTILE.env.SM_META_B);
      expect(got.env.VLLM_API_KEY).toBe(KEY);
      const snap = await core.invoke('server:snapshot', []);
      const log = await core.invoke('server:log', []);
      expect(JSON.stringify(snap)).not.toContain(KEY);
      expect(JSON.stringify(log)).not.toContain(KEY);
      noMarkers();
    } finally {
      await core.invoke('server:stop', []);
      await core.dispose();
    }
  }, 60_000);

  it('the SSH preview quotes a host a shell would read otherwise, so the line pasted reaches that host', async () => {
    const core = createAppCore({
      host: 'bridge',
      dataDir: join(dir, 'app-ssh'),
      detectHardware: async () => ({ gpuType: null, gpus: [], cpu: null, ramBytes: null, os: null, notes: [] }),
    });
    try {
      const d = await core.invoke('server:defaults', []);
      if (!d.ok) throw new Error(d.error);
      const quoted: [string, string][] = [
        [`me@gpu;touch${marker('host')}`, `'me@gpu;touch${marker('host')}'`],
        ['me@$(id)', "'me@$(id)'"],
        ['gpu-box', 'gpu-box'],
      ];
      for (const [host, shown] of quoted) {
        const preview = await core.invoke('server:preview', [
          { ...d.data, where: 'ssh', kind: 'vllm-native', sshHost: host },
        ]);
        if (!preview.ok) throw new Error(preview.error);
        expect(preview.data.display.startsWith(`ssh ${shown} speedmatrix serve -- `)).toBe(true);
        expect(shellSplit(preview.data.display).slice(0, 2)).toEqual(['ssh', host]);
      }
      const bare = await core.invoke('server:preview', [{ ...d.data, where: 'ssh', kind: 'vllm-native', sshHost: '' }]);
      expect(bare.ok && bare.data.display).toMatch(/^ssh <host> speedmatrix serve -- /);
    } finally {
      await core.dispose();
    }
  });
});
