/**
 * The benchmark client against a server that closes idle connections after 5 s, as vLLM's
 * uvicorn does: idle sockets are given up first, and a request that meets a socket the server
 * has just closed is sent again instead of being read as the server going down.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createHttp,
  getTextOrNull,
  IDLE_SOCKET_MS,
  maxTokensFields,
  postJson,
} from '../../../src-main/engine/bench/http';
import type { ServerTarget } from '../../../src-main/engine/server/target';

const servers: Server[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => s.close(r));
});

const reply = (body: string) =>
  `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

/** A raw HTTP/1.1 server; `onRequest` gets the socket and the request's number on it. */
async function rawServer(
  onRequest: (s: Socket, nth: number, connection: number) => void,
): Promise<{ url: string; connections: Socket[]; clientClosed: boolean[] }> {
  const connections: Socket[] = [];
  const clientClosed: boolean[] = [];
  const server = createServer((s) => {
    const id = connections.push(s) - 1;
    clientClosed[id] = false;
    let nth = 0;
    let buf = '';
    s.on('end', () => (clientClosed[id] = true));
    s.on('error', () => undefined);
    s.on('data', (d) => {
      buf += d.toString();
      while (buf.includes('\r\n\r\n')) {
        const head = buf.slice(0, buf.indexOf('\r\n\r\n'));
        const len = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        const end = buf.indexOf('\r\n\r\n') + 4 + len;
        if (buf.length < end) return;
        buf = buf.slice(end);
        onRequest(s, nth++, id);
      }
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, connections, clientClosed };
}

const target = (url: string) => ({ baseUrl: url, model: 'm' }) as ServerTarget;

describe('benchmark HTTP client and idle connections', () => {
  it('keeps an idle socket for less than the 5 s after which vLLM closes it', async () => {
    expect(IDLE_SOCKET_MS).toBeLessThan(5000);
    const srv = await rawServer((s) => s.write(reply('{"ok":true}')));
    const http = createHttp(target(srv.url));
    expect(await getTextOrNull(http, '/health')).toBe('{"ok":true}');
    await new Promise((r) => setTimeout(r, IDLE_SOCKET_MS + 600));
    // The client, not the server, ended the idle connection.
    expect(srv.clientClosed[0]).toBe(true);
    await http.agent.close();
  });

  it('sends a request again when the reused socket is closed before any byte of the answer', async () => {
    // The second request on the first connection meets a socket the server closes (its keep-alive ran out).
    const srv = await rawServer((s, nth, connection) => {
      if (connection === 0 && nth === 1) s.destroy();
      else s.write(reply(JSON.stringify({ connection, nth })));
    });
    const http = createHttp(target(srv.url));
    expect(await postJson(http, '/tokenize', { prompt: 'a' })).toEqual({ connection: 0, nth: 0 });
    expect(await postJson(http, '/tokenize', { prompt: 'b' })).toEqual({ connection: 1, nth: 0 });
    await http.agent.close();
  });

  it('a server that keeps closing is still reported as gone after the one retry', async () => {
    const srv = await rawServer((s) => s.destroy());
    const http = createHttp(target(srv.url));
    await expect(postJson(http, '/tokenize', {})).rejects.toThrow(/closed the connection/);
    expect(srv.connections.length).toBe(2);
    await http.agent.close();
  });

  it('asks for the output limit as max_completion_tokens, and max_tokens for engines that read only that', () => {
    expect(maxTokensFields(4096)).toEqual({ max_completion_tokens: 4096, max_tokens: 4096 });
  });
});
