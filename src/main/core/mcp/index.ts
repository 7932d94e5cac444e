/** The mcp module's public surface: what other modules import. */

export type { InputAsker } from './client-requests.js';
export type { McpGrant, McpImportOffer, McpServerEntry } from './config.js';
export {
  addMcpServer,
  importMcpServers,
  isGranted,
  isStdioEntry,
  McpConfigError,
  mcpImportOffers,
  readMcpServers,
  removeMcpServer,
  requestedGrants,
  setMcpServerDisabled,
} from './config.js';
export { McpTools } from './tools.js';
