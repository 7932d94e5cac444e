import type { PincerApi } from '../../shared/ipc';

declare global {
  interface Window {
    /** Present when the Electron preload exposed the contract. */
    pincer?: PincerApi;
  }
}

/** The transport to the core: Electron's preload today; the gateway's WebSocket comes in #12. */
export function findBridge(): PincerApi | null {
  return window.pincer ?? null;
}
