/** The gateway module's public surface: what other modules import. */
export {
  type AgentAttachPoint,
  type AttachPoint,
  serveAgentAttachPoint,
  serveAttachPoint,
} from './attach.js';
export {
  type GatewayFile,
  gatewayFilePath,
  readGatewayFile,
  writeGatewayFile,
} from './gateway-file.js';
export { type Gateway, startAssistantGateway } from './server.js';
