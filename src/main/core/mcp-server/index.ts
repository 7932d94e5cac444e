/** The mcp-server module's public surface: what other modules import. */
export { serveMcp } from './server.js';
