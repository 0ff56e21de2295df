/** Messages of the test WebSocket bridge: the same channels as IPC, carried as JSON. */
import type { EventChannel, EventPayloads, InvokeChannel } from '#shared/ipc/contract';
import type { Result } from '#shared/result';

export interface WsInvoke {
  type: 'invoke';
  id: number;
  channel: InvokeChannel;
  args: unknown[];
}
export interface WsReply {
  type: 'reply';
  id: number;
  result: Result<unknown>;
}
export interface WsEvent<C extends EventChannel = EventChannel> {
  type: 'event';
  channel: C;
  payload: EventPayloads[C];
}
export const WS_PATH = '/bridge';
