/** The ipc module's public surface: what other modules import. */

export type { IpcHandlers } from './dispatch.js';
export { dispatch } from './dispatch.js';
export { createCoreHandlers } from './handlers.js';
