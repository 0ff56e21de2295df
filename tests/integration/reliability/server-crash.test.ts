/**
 * The server crashes mid-cell. Attached (CLI `run --url`): the cell becomes Error,
 * the run stops cleanly with exit 1 and says to resume, every finished cell is kept and the rest
 * are left unmeasured. Supervised (`run --launch`, the production restart): the cell is Error
 * with the server's last log lines, the server is restarted and the run goes on from the next cell.
 */
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { readSessionFile } from '../../../src-main/platform/session/read';
import { runCli } from '../../helpers/cli';
import { simTest as it } from '../../helpers/fixtures';
import { freePort } from '../../helpers/sim';
import { cellsOf, tempDir } from '../bench/bench-helpers';

const SPEED = 20;

describe('a server that crashes mid-cell', () => {
  it('attached: the cell is Error, the run stops cleanly (exit 1, says to resume), finished cells kept, the rest left for a resume', async ({
    launchSim,
  }) => {
    // The warm-ups (a short decode and a 3 s decode) and the first cell make about 2,600 tokens;
    // the second cell makes about 3,800 more, so the crash comes early in it.
    const sim = await launchSim({
      speed: SPEED,
      args: ['--served-model-name', 'fara', '--sim-crash-after-tokens', '3600'],
    });
    const dir = tempDir();
    const out = join(dir, 'crash.speedmatrix.json');
    const r = await runCli(
      [
        'run',
        '--url',
        sim.url,
        '--contexts',
        '0',
        '--concurrency',
        '1,2,4',
        '--prefill-contexts',
        'none',
        '--duration',
        '10',
        '--sim-speed',
        String(SPEED),
        '--out',
        out,
      ],
      { cwd: dir, timeoutMs: 150_000 },
    );
    expect(r.code).toBe(1);
    expect(r.stderr + r.stdout).toMatch(
      /The run stopped: the server went down and was not restarted\. Every finished cell is saved; resume the run once the server is back\./,
    );
    const s = await readSessionFile(out);
    if (!s.ok) throw new Error(s.error.message);
    const c = cellsOf(s.data);
    expect(c['0x1'].status).toBe('valid');
    expect(c['0x2'].status).toBe('error');
    expect(c['0x2'].reason).toMatch(/went down/);
    expect(Object.keys(c).sort()).toEqual(['0x1', '0x2']);
    expect(s.data.events.some((e) => e.level === 'error' && /The run stopped/.test(e.message))).toBe(true);
  }, 180_000);

  it('supervised (`run --launch`): the cell keeps the last log lines, the same launch is restarted, the next cells are measured', async () => {
    // The production path: the CLI launches the server through the supervisor and the
    // orchestrator restarts it with SupervisedServer.restart (the same command again). Cells run
    // 0x1 (~2,700 tokens), 32Kx1 (~1,800), 0x2 (~4,200), 32Kx2 (~3,700): at 6,500 tokens the first
    // server dies in 0x2; the second, with the same switch, finishes 32Kx2 below it.
    const dir = tempDir();
    const out = join(dir, 'sup.speedmatrix.json');
    const port = await freePort();
    const r = await runCli(
      [
        'run',
        '--launch',
        '--contexts',
        '0,32k',
        '--concurrency',
        '1,2',
        '--prefill-contexts',
        'none',
        '--duration',
        '10',
        '--sim-speed',
        String(SPEED),
        '--out',
        out,
        '--',
        'sim',
        'serve',
        '--port',
        String(port),
        '--sim-speed',
        String(SPEED),
        '--sim-load-seconds',
        '0.2',
        '--served-model-name',
        'fara',
        '--sim-crash-after-tokens',
        '6500',
      ],
      { cwd: dir, timeoutMs: 150_000 },
    );
    const said = r.stdout + r.stderr;
    expect(said).toMatch(/The server died \(.+\); restarting it\.\.\./);
    expect(said).toMatch(/The server is back; continuing\./);
    expect(r.code).toBe(0);
    const s = await readSessionFile(out);
    if (!s.ok) throw new Error(s.error.message);
    const c = cellsOf(s.data);
    expect([c['0x1'].status, c['32768x1'].status, c['0x2'].status, c['32768x2'].status]).toEqual([
      'valid',
      'valid',
      'error',
      'valid',
    ]);
    expect(c['0x2'].evidence?.logLines.join('\n')).toMatch(/EngineCore encountered a fatal error/);
    // The restarted server was stopped at the end too.
    await expect(fetch(`http://127.0.0.1:${port}/health`)).rejects.toThrow();
  }, 180_000);
});
