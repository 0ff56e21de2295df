/**
 * A simulator started through `speedmatrix serve -- speedmatrix sim serve ...` (and so through
 * `sweep`, which launches its variants the same way) listens on loopback only unless the
 * command gives --host. The real CLI and simulator; the socket is tried from another address.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { networkInterfaces, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { freePort } from '../../../src-main/engine/server/port';
import { ROOT } from '../../helpers/paths';

/** This machine's first non-loopback IPv4 address, if it has one. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;

/** Whether a TCP connection to host:port is accepted. */
const accepts = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = connect({ host, port }, () => (s.destroy(), resolve(true)));
    s.on('error', () => resolve(false));
  });

/** `speedmatrix serve -- speedmatrix sim serve m --port PORT [extra]` until READY; stopped when the test ends. */
async function serveSim(port: number, extra: string[]): Promise<string> {
  const data = mkdtempSync(join(tmpdir(), 'sm-host-'));
  onTestFinished(() => rmSync(data, { recursive: true, force: true }));
  const args = ['serve', '--', 'speedmatrix', 'sim', 'serve', 'm', '--port', String(port), '--sim-speed', '20'];
  const cli = spawn(process.execPath, [join(ROOT, 'src-main/hosts/cli/bin.cjs'), ...args, ...extra], {
    env: { ...process.env, SPEEDMATRIX_DATA_DIR: data },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  onTestFinished(async () => {
    if (cli.exitCode !== null) return;
    cli.kill('SIGINT');
    await new Promise((r) => cli.on('exit', r));
  });
  let out = '';
  cli.stdout.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`not ready:\n${out}`)), 90_000);
    cli.stdout.on('data', () => /^READY /m.test(out) && (clearTimeout(t), resolve()));
    cli.on('exit', () => reject(new Error(`serve exited:\n${out}`)));
  });
  return out;
}

describe.skipIf(!outsideAddress)('the simulator launched by serve', () => {
  it('listens on 127.0.0.1 only when the command gives no --host', async () => {
    const port = await freePort();
    const out = await serveSim(port, []);
    expect(out).toContain(`Launching: speedmatrix sim serve m --host 127.0.0.1 --port ${port}`);
    expect(await accepts('127.0.0.1', port)).toBe(true);
    expect(await accepts(outsideAddress!, port)).toBe(false);
  }, 120_000);

  it('listens where --host says when it is given', async () => {
    const port = await freePort();
    await serveSim(port, ['--host', '0.0.0.0']);
    expect(await accepts(outsideAddress!, port)).toBe(true);
  }, 120_000);
});
