/** The OpenAI-compatible local endpoint: serves the bundled model (not the agent) over HTTP. */
export { generateApiKey, isLoopbackHost } from './auth.js';

export { LocalBackend } from './local-backend.js';
export {
  DEFAULT_PORT,
  type OpenAiServer,
  type RequestLogEntry,
  startOpenAiServer,
} from './server.js';
