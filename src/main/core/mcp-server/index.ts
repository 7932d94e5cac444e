/** The mcp-server module's public surface: what other modules import. */
export { listenMcpHttp, type McpHttpListener } from './http.js';
export { mcpServerOver, serveMcp } from './server.js';
