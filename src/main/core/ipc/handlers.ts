import type { AppInfo } from '../../../shared/ipc.js';
import { PINCER_VERSION, PRODUCT_NAME } from '../product.js';
import type { IpcHandlers } from './dispatch.js';

export interface CoreHandlerOptions {
  dataDir: string;
  /** Electron's version when the desktop shell hosts the core; null when headless. */
  electronVersion: string | null;
  now?: () => Date;
}

/** The core side of the contract, identical whichever transport carries the call. */
export function createCoreHandlers(options: CoreHandlerOptions): IpcHandlers {
  const now = options.now ?? (() => new Date());
  const info: AppInfo = {
    name: PRODUCT_NAME,
    version: PINCER_VERSION,
    platform: process.platform,
    arch: process.arch,
    node: process.versions.node,
    electron: options.electronVersion,
    dataDir: options.dataDir,
  };
  return {
    'app.getInfo': () => info,
    'agent.ping': ({ message }) => ({ reply: `pong: ${message}`, receivedAt: now().toISOString() }),
  };
}
