/**
 * The A2A client: remote agents a person declared, offered to the model as tools. The SDK's
 * client loads with the first call (`client.ts`, imported lazily), not with every agent.
 */
export {
  addRemoteAgent,
  RemoteAgentConfigError,
  type RemoteAgentEntry,
  readRemoteAgents,
  remoteAgentName,
  removeRemoteAgent,
} from './config.js';
export { guardedFetch } from './fetch.js';
export { stateName } from './states.js';
export { remoteAgentTool } from './tools.js';
