/** The mcp module's public surface: what other modules import. */

export {
  addMcpServer,
  importMcpServers,
  isGranted,
  isStdioEntry,
  McpConfigError,
  type McpImportOffer,
  type McpServerEntry,
  mcpImportOffers,
  readMcpServers,
  removeMcpServer,
  requestedGrants,
  setMcpServerDisabled,
} from './config.js';
export { McpTools } from './tools.js';
