/** The OpenAI-compatible local endpoint: serves the bundled model (not the agent) over HTTP. */
export { generateApiKey, isLoopbackHost } from './auth.js';
export type { ModelBackend, ServedModel } from './backend.js';
export { ApiError } from './errors.js';
export {
  type BackendEngine,
  LocalBackend,
  type LocalBackendOptions,
  modelIdOf,
} from './local-backend.js';
export {
  DEFAULT_PORT,
  type OpenAiServer,
  OpenAiServerError,
  type OpenAiServerOptions,
  type RequestLogEntry,
  startOpenAiServer,
} from './server.js';
