/** The A2A client: remote agents a person declared, offered to the model as tools. */
export { askRemoteAgent, fetchAgentCard, grantsOf, partsText, stateName } from './client.js';
export {
  addRemoteAgent,
  RemoteAgentConfigError,
  type RemoteAgentEntry,
  readRemoteAgents,
  remoteAgentName,
  remoteAgentsPath,
  removeRemoteAgent,
} from './config.js';
export { guardedFetch } from './fetch.js';
export { REMOTE_AGENT_NAMESPACE, remoteAgentTool } from './tools.js';
