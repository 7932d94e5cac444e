/** The CKP JSON-RPC server: a lifecycle host, per-connection sessions, three transports. */

export { swarmFor } from './backend-swarm.js';
export { CkpHost } from './host.js';
export { RpcError } from './jsonrpc.js';
export type { CkpTasks } from './session.js';

export { ToolCalls } from './tool-calls.js';
export {
  bearerAuthorized,
  type Listener,
  listenHttp,
  listenWebSocket,
  MAX_FRAME_BYTES,
  newToken,
  serveStdio,
  sessionFactory,
} from './transports.js';
