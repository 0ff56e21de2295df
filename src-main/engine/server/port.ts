/**
 * Is a TCP port free to listen on? vLLM sets SO_REUSEPORT, so a second server can start on a
 * busy port and share it silently; SpeedMatrix checks first and refuses.
 */
import { createConnection, createServer } from 'node:net';
import { connectHost } from './launch';

function canListen(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });
}

function someoneAnswers(host: string, port: number, timeoutMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    const sock = createConnection({ host: connectHost(host).replace(/^\[|\]$/g, ''), port });
    const done = (v: boolean) => {
      sock.destroy();
      resolve(v);
    };
    sock.setTimeout(timeoutMs, () => done(false));
    sock.once('connect', () => done(true));
    sock.once('error', () => done(false));
  });
}

/**
 * True when nothing listens on host:port. Both binding and connecting are tried: binding
 * 0.0.0.0 can succeed next to a server bound to 127.0.0.1 only, and the reverse.
 */
export async function isPortFree(host: string, port: number): Promise<boolean> {
  if (!(await canListen(host, port))) return false;
  return !(await someoneAnswers(host, port, 1000));
}

/** A TCP port the OS says is free now on `host` (the supervisor checks again before launching). */
export function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, host, () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}
