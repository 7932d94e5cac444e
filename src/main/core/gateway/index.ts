/** The gateway module's public surface: what other modules import. */
export {
  type AgentAttachPoint,
  type AttachPoint,
  serveAgentAttachPoint,
  serveAttachPoint,
} from './attach.js';
export {
  type AttachedDesktop,
  type AttachOptions,
  attachToRunningAgent,
  bindTrayPause,
} from './attached-desktop.js';
export {
  type CoreLink,
  connectGateway,
  inProcessLink,
  LinkError,
  type LinkState,
  parseGatewayAddress,
} from './client.js';
export {
  type GatewayFile,
  gatewayFilePath,
  readGatewayFile,
  writeGatewayFile,
} from './gateway-file.js';
export { type Gateway, startAssistantGateway } from './server.js';
