/** The gateway module's public surface: what other modules import. */
export { serveAgentAttachPoint, serveAttachPoint } from './attach.js';
export { type AttachedDesktop, attachToRunningAgent, bindTrayPause } from './attached-desktop.js';
export {
  type CoreLink,
  connectGateway,
  inProcessLink,
  type LinkState,
  parseGatewayAddress,
} from './client.js';
export { readGatewayFile, writeGatewayFile } from './gateway-file.js';
export { startAssistantGateway } from './server.js';
