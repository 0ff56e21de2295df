/**
 * The server crashes mid-cell. Attached (CLI `run --url`): the cell becomes Error,
 * the run stops cleanly with exit 1 and says to resume, every finished cell is kept and the rest
 * are left unmeasured. Supervised: the cell is Error with the server's last log lines, the
 * server is restarted and the run goes on from the next cell.
 */
import { join } from 'node:path';
import { afterEach, describe, expect } from 'vitest';
import type { LaunchOptions } from '../../../src-main/server/launch';
import { Supervisor } from '../../../src-main/server/supervisor';
import { readSessionFile } from '../../../src-main/session/read';
import { runCli } from '../../helpers/cli';
import { simTest as it } from '../../helpers/fixtures';
import { freePort } from '../../helpers/sim';
import { cellsOf, runBench, tempDir } from '../bench/bench-helpers';

const SPEED = 20;
let sup: Supervisor | null = null;
afterEach(async () => {
  await sup?.stop();
  sup = null;
});

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

  it('supervised: the cell keeps the last log lines, the server is restarted, the next cells are measured', async () => {
    sup = new Supervisor();
    const launch: LaunchOptions = {
      engineKind: 'simulator',
      model: 'microsoft/Fara1.5-4B',
      servedModelName: 'fara',
      host: '127.0.0.1',
      port: await freePort(),
      simSpeed: SPEED,
      simArgs: ['--sim-load-seconds', '0.2', '--sim-crash-after-tokens', '2500'],
    };
    const started = await sup.start(launch, { readyTimeoutMs: 45_000, stopTimeoutMs: 5_000 });
    if (!started.ok) throw new Error(started.error.message);
    const s = sup;
    const r = await runBench(
      started.data,
      {
        contexts: [0],
        concurrency: [1, 2, 4],
        prefillContexts: [],
        secondsPerMeasurement: 10,
        simSpeed: SPEED,
        warmup: false,
      },
      join(tempDir(), 'sup.speedmatrix.json'),
      {
        serverLogLines: () => s.logTail(500),
        onServerCrash: async () => {
          await s.stop();
          const again = await s.start(
            { ...launch, simArgs: ['--sim-load-seconds', '0.2'] },
            { readyTimeoutMs: 45_000, stopTimeoutMs: 5_000 },
          );
          return again.ok ? again.data : null;
        },
      },
    );
    const c = cellsOf(r.session);
    expect(c['0x1'].status).toBe('valid');
    expect(c['0x2'].status).toBe('error');
    expect(c['0x2'].evidence?.logLines.length).toBeGreaterThan(0);
    expect(c['0x2'].evidence?.logLines.join('\n')).toMatch(/EngineCore encountered a fatal error/);
    expect(c['0x4'].status).toBe('valid');
    const done = r.events.find((e) => e.type === 'run-done');
    expect(done?.type === 'run-done' && done.outcome).toBe('completed');
  }, 180_000);
});
