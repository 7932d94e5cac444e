/** The agent as an A2A server: its AgentCard, its tasks (shared with CKP's claw.task.*), HTTP. */
export { agentCardOf, SKILL_SCHEMAS_EXTENSION } from './card.js';
export { RUN_METADATA_KEY } from './executor.js';
export { A2A_RPC_PATH, type A2aListener, listenA2a } from './http.js';
export { A2A_ORIGIN, A2aTasks, type A2aTasksOptions } from './tasks.js';
