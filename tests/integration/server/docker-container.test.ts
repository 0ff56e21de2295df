/**
 * A `docker run` server leaves its container behind when its client is killed. The supervisor
 * removes the container by the name the command gave it, whichever way the command was built:
 * the Docker engine choice, or a typed command such as a sweep variant's.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dockerContainerOf } from '../../../src-main/engine/server/command-line';
import { buildLaunch, dockerContainerName } from '../../../src-main/engine/server/launch';
import { Supervisor } from '../../../src-main/engine/server/supervisor';
import { freePort } from '../../helpers/fake-servers';
import { ROOT } from '../../helpers/paths';

const FAKE_DOCKER_DIR = join(ROOT, 'tests/helpers/fake-docker');
const logDir = mkdtempSync(join(tmpdir(), 'sm-docker-'));
const log = join(logDir, 'docker.log');
const saved = { path: process.env.PATH, log: process.env.FAKE_DOCKER_LOG };
beforeAll(() => {
  process.env.PATH = `${FAKE_DOCKER_DIR}${delimiter}${process.env.PATH}`;
  process.env.FAKE_DOCKER_LOG = log;
});
afterAll(() => {
  rmSync(logDir, { recursive: true, force: true });
  process.env.PATH = saved.path;
  if (saved.log === undefined) delete process.env.FAKE_DOCKER_LOG;
  else process.env.FAKE_DOCKER_LOG = saved.log;
});

const logLines = (): string[] => readFileSync(log, 'utf8').trim().split('\n');

describe('the container of a docker run server', () => {
  it('is named by the command: docker run --name, not other commands', () => {
    expect(dockerContainerOf(['docker', 'run', '--rm', '--name', 'box', 'img', 'serve', 'm'])).toBe('box');
    expect(dockerContainerOf(['/usr/bin/docker', 'run', '--name=box', 'img'])).toBe('box');
    expect(dockerContainerOf(['docker.exe', 'run', '--name', 'box', 'img'])).toBe('box');
    expect(dockerContainerOf(['docker', 'run', 'img'])).toBeNull();
    expect(dockerContainerOf(['docker', 'ps', '--name', 'x'])).toBeNull();
    expect(dockerContainerOf(['vllm', 'serve', 'm'])).toBeNull();
    const engine = buildLaunch({ engineKind: 'vllm-docker', model: 'org/m', host: '127.0.0.1', port: 8123 });
    expect(dockerContainerOf(engine.argv)).toBe(dockerContainerName(8123));
  });

  it('is removed when a typed docker run command (a sweep variant’s) is stopped', async () => {
    const sup = new Supervisor();
    const port = await freePort();
    const argv = ['docker', 'run', '--rm', '--name', 'sm-variant-b', 'vllm/vllm-openai:v0.11.0', 'serve', 'org/m'];
    const started = sup.start(
      { engineKind: 'custom', customArgv: argv, model: 'org/m', host: '127.0.0.1', port },
      { readyTimeoutMs: 30_000 },
    );
    const end = Date.now() + 10_000;
    while (!readFileSafe(log).includes('run sm-variant-b')) {
      if (Date.now() > end) throw new Error('the fake docker client did not start');
      await new Promise((r) => setTimeout(r, 50));
    }
    const report = await sup.stop();
    await started;
    expect(logLines()).toEqual(['run sm-variant-b', 'rm -f sm-variant-b']);
    expect(report.orphansKilled.map((o) => o.command)).toContain('docker container sm-variant-b');
  }, 40_000);
});

function readFileSafe(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
