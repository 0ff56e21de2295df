/**
 * Test-only: serves the BUILT renderer (out/renderer) over http on 127.0.0.1 and exposes the
 * same IPC contract over a same-origin WebSocket (/bridge), backed by the real app core. A
 * browser opening `/index.html?bridge=ws` then runs the real UI against the real core.
 *
 * Standalone: `node --import tsx tests/helpers/bridge-server.ts` prints the URL to open.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { type WebSocket, WebSocketServer } from 'ws';
import { type AppCore, type AppCoreOptions, createAppCore } from '../../src-main/hosts/app-core';
import type { InvokeChannel } from '#shared/ipc/contract';
import { EVENT_CHANNELS } from '#shared/ipc/channels';
import { htmlToPdf } from '../../src-main/workflows/report/pdf';
import type { WsEvent, WsInvoke, WsReply } from '../../src-renderer/src/bridge/ws-protocol';
import { WS_PATH } from '../../src-renderer/src/bridge/ws-protocol';
import { ROOT } from './paths';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/** The same policy as the page's meta tag, also sent as a header (as the app does). */
export const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; font-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-src 'none'; object-src 'none'";

/** Where file dialogs "choose": saves go into saveDir under the suggested name; opens and folders come from queues. */
export class TestDialogs {
  readonly openQueue: string[] = [];
  readonly saveQueue: string[] = [];
  /** Folders "chosen" in the folder dialog (Open Sweep, a new sweep's folder), then cancelled. */
  readonly folderQueue: string[] = [];
  /** File sets "chosen" in the multi-file dialog (Compare Sessions), then cancelled. */
  readonly pathsQueue: string[][] = [];
  /** Trace files "chosen" in the Load form's trace dialog, then cancelled. */
  readonly traceQueue: string[] = [];
  constructor(readonly saveDir: string) {}
  async chooseOpenPath(): Promise<string | null> {
    return this.openQueue.shift() ?? null;
  }
  async chooseSavePath(defaultName: string): Promise<string | null> {
    return this.saveQueue.shift() ?? join(this.saveDir, defaultName);
  }
  async chooseFolder(): Promise<string | null> {
    return this.folderQueue.shift() ?? null;
  }
  async chooseOpenPaths(): Promise<string[] | null> {
    return this.pathsQueue.shift() ?? null;
  }
  async chooseTraceFile(): Promise<string | null> {
    return this.traceQueue.shift() ?? null;
  }
}

export interface BridgeServer {
  url: string;
  port: number;
  core: AppCore;
  dialogs: TestDialogs;
  dataDir: string;
  /** How many times pages invoked each channel over the socket (the test's own core.invoke calls are not counted). */
  invoked: Partial<Record<InvokeChannel, number>>;
  close(): Promise<void>;
}

export interface BridgeServerOptions {
  rendererDir?: string;
  core?: Partial<AppCoreOptions>;
}

export async function startBridgeServer(opts: BridgeServerOptions = {}): Promise<BridgeServer> {
  const rendererDir = resolve(opts.rendererDir ?? join(ROOT, 'out/renderer'));
  if (!existsSync(join(rendererDir, 'index.html'))) {
    throw new Error(`No built renderer at ${rendererDir}: run \`npx electron-vite build\` first.`);
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'speedmatrix-bridge-'));
  const dialogs = new TestDialogs(join(dataDir, 'files'));
  // PDF export through the same headless Chromium path the CLI uses (report/pdf.ts).
  const printPdf = async (html: string): Promise<Uint8Array> => {
    const r = await htmlToPdf(html);
    if (!r.ok) throw new Error(r.error);
    return r.data;
  };
  const core = createAppCore({ host: 'bridge', dataDir: join(dataDir, 'app'), dialogs, printPdf, ...opts.core });
  await import('node:fs/promises').then((fs) => fs.mkdir(dialogs.saveDir, { recursive: true }));

  const http = createServer((req, res) => void serveStatic(rendererDir, req, res));
  const wss = new WebSocketServer({ noServer: true });
  const invoked: BridgeServer['invoked'] = {};
  http.on('upgrade', (req, socket, head) => {
    // Only our own page may connect: same host, and the path the renderer uses.
    const origin = req.headers.origin ?? '';
    if (req.url !== WS_PATH || origin !== `http://${req.headers.host}`) {
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => connect(core, ws, invoked));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const addr = http.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}/index.html?bridge=ws`,
    port,
    core,
    dialogs,
    dataDir,
    invoked,
    async close() {
      for (const ws of wss.clients) ws.terminate();
      wss.close();
      await new Promise<void>((r) => http.close(() => r()));
      await core.dispose();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function connect(core: AppCore, ws: WebSocket, invoked: BridgeServer['invoked']): void {
  const offs = EVENT_CHANNELS.map((channel) =>
    core.on(channel, (payload) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'event', channel, payload } satisfies WsEvent));
    }),
  );
  ws.on('message', async (data) => {
    let msg: WsInvoke;
    try {
      msg = JSON.parse(String(data)) as WsInvoke;
    } catch {
      return;
    }
    if (msg?.type !== 'invoke' || typeof msg.id !== 'number') return;
    invoked[msg.channel as InvokeChannel] = (invoked[msg.channel as InvokeChannel] ?? 0) + 1;
    const result = await core.invoke(msg.channel as InvokeChannel, Array.isArray(msg.args) ? msg.args : []);
    if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ type: 'reply', id: msg.id, result } satisfies WsReply));
  });
  ws.on('close', () => offs.forEach((off) => off()));
}

async function serveStatic(root: string, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
  const file = normalize(join(root, path === '/' ? 'index.html' : path));
  if (!file.startsWith(root + sep)) {
    res.writeHead(403).end();
    return;
  }
  try {
    const body = await readFile(file);
    res.writeHead(200, {
      'content-type': TYPES[extname(file)] ?? 'application/octet-stream',
      'content-security-policy': CSP,
      'cache-control': 'no-store',
    });
    res.end(body);
  } catch {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

if (require.main === module) {
  void startBridgeServer().then((b) => {
    process.stdout.write(`SpeedMatrix renderer with the real core: ${b.url}\n`);
    const bye = () => void b.close().then(() => process.exit(0));
    process.once('SIGINT', bye);
    process.once('SIGTERM', bye);
  });
}
