/** The mcp module's public surface: what other modules import. */

export type { InputAsker } from './client-requests.js';
export type { McpServerEntry } from './config.js';
export {
  addMcpServer,
  importMcpServers,
  isStdioEntry,
  McpConfigError,
  readMcpServers,
  removeMcpServer,
  setMcpServerDisabled,
} from './config.js';
export { McpTools } from './tools.js';
