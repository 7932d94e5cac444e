import { ipcMain } from 'electron';
import { type ChannelName, channelNames, type IpcResult } from '../../shared/ipc.js';
import { isTrustedRendererUrl } from './renderer-origin.js';

/** One call of the contract to where it is answered: the core here, or the agent attached to. */
export type IpcRoute = (channel: ChannelName, request: unknown) => Promise<IpcResult<unknown>>;

/** Wires every channel of the contract to the core, refusing calls from any other frame. */
export function registerIpc(route: IpcRoute): void {
  for (const channel of channelNames) {
    ipcMain.handle(channel, async (event, request: unknown) => {
      const url = event.senderFrame?.url ?? '';
      if (!isTrustedRendererUrl(url)) {
        return { ok: false, error: { code: 'unknown_channel', message: 'untrusted sender' } };
      }
      return route(channel, request);
    });
  }
}
