/** The CKP JSON-RPC server: a lifecycle host, per-connection sessions, three transports. */

export { BackendSwarm, swarmFor } from './backend-swarm.js';
export {
  CkpHost,
  type CkpHostOptions,
  DEFAULT_HEARTBEAT_MS,
  type LifecycleEvent,
  type LifecycleState,
} from './host.js';
export { answerFrame, RpcError } from './jsonrpc.js';
export { CkpSession, type CkpTasks } from './session.js';
export { type CkpSwarm, InProcessSwarm } from './swarm.js';
export { ToolCalls } from './tool-calls.js';
export {
  bearerAuthorized,
  type Listener,
  listenHttp,
  listenWebSocket,
  MAX_FRAME_BYTES,
  newToken,
  type SessionFactory,
  serveStdio,
  sessionFactory,
} from './transports.js';
