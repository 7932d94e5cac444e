/** The mcp-server module's public surface: what other modules import. */
export { listenMcpHttp, MCP_PATH, type McpHttpListener, type McpHttpOptions } from './http.js';
export { type McpServerOptions, mcpServerOver, serveMcp } from './server.js';
