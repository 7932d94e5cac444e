/** The gateway module's public surface: what other modules import. */
export { startAssistantGateway } from './server.js';
