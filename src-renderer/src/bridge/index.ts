/** The bridge in use: the preload's in the app, or the test WebSocket bridge in a browser. */
import type { SpeedMatrixBridge } from '#shared/ipc/channels';
import { createWsBridge, wsBridgeUrl } from './ws-bridge';

declare global {
  interface Window {
    speedmatrix?: SpeedMatrixBridge;
  }
}

let bridge: SpeedMatrixBridge | null = null;

export function getBridge(): SpeedMatrixBridge | null {
  if (bridge) return bridge;
  if (window.speedmatrix) bridge = window.speedmatrix;
  else {
    const url = wsBridgeUrl(window.location);
    if (url) bridge = createWsBridge(url);
  }
  return bridge;
}

/** The bridge, for code that runs only after startup found one. */
export function bridgeOrThrow(): SpeedMatrixBridge {
  const b = getBridge();
  if (!b) throw new Error('No SpeedMatrix bridge: open this page inside the app.');
  return b;
}
