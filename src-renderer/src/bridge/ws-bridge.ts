/**
 * A WebSocket-backed bridge with the same named methods as the preload's, for running the
 * built renderer in a plain browser against the real core (tests/helpers/bridge-server.ts).
 * The socket is same-origin, so the CSP's connect-src 'self' already allows it.
 */
import type { EventChannel, EventPayloads } from '#shared/ipc/contract';
import { type SpeedMatrixBridge, bridgeEvents, bridgeMethods } from '#shared/ipc/channels';
import type { Result } from '#shared/result';
import { WS_PATH, type WsEvent, type WsInvoke, type WsReply } from './ws-protocol';

export function createWsBridge(url: string): SpeedMatrixBridge {
  const socket = new WebSocket(url);
  const opened = new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    socket.addEventListener('error', () => reject(new Error(`Cannot reach the bridge at ${url}.`)), { once: true });
  });
  const pending = new Map<number, (r: Result<unknown>) => void>();
  const listeners = new Map<EventChannel, Set<(p: unknown) => void>>();
  let nextId = 1;

  socket.addEventListener('message', (ev) => {
    const msg = JSON.parse(String(ev.data)) as WsReply | WsEvent;
    if (msg.type === 'reply') {
      pending.get(msg.id)?.(msg.result);
      pending.delete(msg.id);
    } else if (msg.type === 'event') {
      for (const cb of listeners.get(msg.channel) ?? []) cb(msg.payload);
    }
  });
  socket.addEventListener('close', () => {
    for (const resolve of pending.values()) resolve({ ok: false, error: 'The bridge connection closed.' });
    pending.clear();
  });

  const invoke = async (channel: WsInvoke['channel'], args: unknown[]): Promise<Result<unknown>> => {
    try {
      await opened;
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
    const id = nextId++;
    return new Promise((resolve) => {
      pending.set(id, resolve);
      // Trailing undefined arguments (optional paths) travel as absent.
      while (args.length && args[args.length - 1] === undefined) args = args.slice(0, -1);
      socket.send(JSON.stringify({ type: 'invoke', id, channel, args } satisfies WsInvoke));
    });
  };

  const bridge: Record<string, unknown> = {};
  for (const [method, channel] of Object.entries(bridgeMethods)) {
    bridge[method] = (...args: unknown[]) => invoke(channel, args);
  }
  for (const [method, channel] of Object.entries(bridgeEvents)) {
    bridge[method] = (cb: (p: EventPayloads[EventChannel]) => void) => {
      const set = listeners.get(channel) ?? new Set();
      listeners.set(channel, set);
      const wrapped = (p: unknown) => cb(p as EventPayloads[EventChannel]);
      set.add(wrapped);
      return () => set.delete(wrapped);
    };
  }
  return bridge as unknown as SpeedMatrixBridge;
}

/** The bridge URL when the page was opened as `index.html?bridge=ws`, else null. */
export function wsBridgeUrl(loc: Location): string | null {
  const mode = new URLSearchParams(loc.search).get('bridge');
  if (mode !== 'ws' || (loc.protocol !== 'http:' && loc.protocol !== 'https:')) return null;
  return `${loc.protocol === 'https:' ? 'wss' : 'ws'}://${loc.host}${WS_PATH}`;
}
