import { ipcMain } from 'electron';
import { channelNames } from '../../shared/ipc.js';
import type { IpcHandlers } from '../core/ipc/index.js';
import { dispatch } from '../core/ipc/index.js';
import { isTrustedRendererUrl } from './renderer-origin.js';

/** Wires every channel of the contract to the core, refusing calls from any other frame. */
export function registerIpc(handlers: IpcHandlers): void {
  for (const channel of channelNames) {
    ipcMain.handle(channel, async (event, request: unknown) => {
      const url = event.senderFrame?.url ?? '';
      if (!isTrustedRendererUrl(url)) {
        return { ok: false, error: { code: 'unknown_channel', message: 'untrusted sender' } };
      }
      return dispatch(handlers, channel, request);
    });
  }
}
