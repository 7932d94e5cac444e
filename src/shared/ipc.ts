/**
 * The IPC contract: the only door between the renderer and the core.
 *
 * Every channel names a request schema and a response schema. Both transports (Electron IPC
 * through the preload, and the gateway's WebSocket) carry exactly these channels, and the main
 * side validates every request against its schema before any handler sees it. Requests are
 * strict objects, so a field the contract lacks is an error rather than silently ignored.
 *
 * Pure module: no node:, no electron.
 */
import { z } from 'zod';

export { IpcCallError, type IpcErrorCode, type IpcResult, unwrapResult } from './ipc-result.js';

/** Requests larger than this (serialised JSON, in bytes) are rejected before parsing. */
export const MAX_REQUEST_BYTES = 1024 * 1024;

export const AppInfoSchema = z.object({
  name: z.string(),
  version: z.string(),
  platform: z.string(),
  arch: z.string(),
  node: z.string(),
  /** Electron version when served by the desktop shell, null in the headless gateway. */
  electron: z.string().nullable(),
  dataDir: z.string(),
});
export type AppInfo = z.infer<typeof AppInfoSchema>;

export const ipcContract = {
  'app.getInfo': {
    request: z.strictObject({}),
    response: AppInfoSchema,
  },
  'agent.ping': {
    request: z.strictObject({ message: z.string().min(1).max(4096) }),
    response: z.object({ reply: z.string(), receivedAt: z.string() }),
  },
} as const satisfies Record<string, { request: z.ZodType; response: z.ZodType }>;

export type Contract = typeof ipcContract;
export type ChannelName = keyof Contract;
export type RequestOf<C extends ChannelName> = z.input<Contract[C]['request']>;
export type ResponseOf<C extends ChannelName> = z.output<Contract[C]['response']>;

export const channelNames = Object.keys(ipcContract) as ChannelName[];

export function isChannelName(name: unknown): name is ChannelName {
  return typeof name === 'string' && Object.hasOwn(ipcContract, name);
}

/** The API the preload exposes on `window.pincer` (and the WebSocket client mirrors). */
export interface PincerApi {
  invoke<C extends ChannelName>(channel: C, request: RequestOf<C>): Promise<ResponseOf<C>>;
}
