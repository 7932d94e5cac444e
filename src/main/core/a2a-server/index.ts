/** The agent as an A2A server: its AgentCard, its tasks (shared with CKP's claw.task.*), HTTP. */
export { listenA2a } from './http.js';
export { A2aTasks } from './tasks.js';
