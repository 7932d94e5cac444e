/**
 * Exposes exactly the contract of src/shared/ipc.ts on `window.pincer`, and nothing else: no
 * ipcRenderer, no Node. Unknown channels are refused here as well as in the main process.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { type IpcResult, isChannelName, type PincerApi, unwrapResult } from '../shared/ipc.js';

const api: PincerApi = {
  async invoke(channel, request) {
    if (!isChannelName(channel)) throw new Error(`unknown channel: ${String(channel)}`);
    const result = (await ipcRenderer.invoke(channel, request)) as IpcResult<never>;
    return unwrapResult(result);
  },
};

contextBridge.exposeInMainWorld('pincer', api);
