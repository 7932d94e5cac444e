/**
 * Exposes exactly the contract of src/shared/ipc.ts on `window.pincer`, and nothing else: no
 * ipcRenderer, no Node. Unknown channels are refused here as well as in the main process; events
 * arrive on one channel and reach the page as plain data.
 */
import { contextBridge, type IpcRendererEvent, ipcRenderer } from 'electron';
import {
  type AssistantEvent,
  EVENT_CHANNEL,
  type IpcResult,
  isChannelName,
  type PincerApi,
  unwrapResult,
} from '../shared/ipc.js';

const api: PincerApi = {
  async invoke(channel, request) {
    if (!isChannelName(channel)) throw new Error(`unknown channel: ${String(channel)}`);
    const result = (await ipcRenderer.invoke(channel, request)) as IpcResult<never>;
    return unwrapResult(result);
  },
  subscribe(listener) {
    const forward = (_event: IpcRendererEvent, payload: AssistantEvent) => listener(payload);
    ipcRenderer.on(EVENT_CHANNEL, forward);
    return () => {
      ipcRenderer.off(EVENT_CHANNEL, forward);
    };
  },
};

contextBridge.exposeInMainWorld('pincer', api);
