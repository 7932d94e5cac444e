/** The runtime module's public surface: what other modules import. */

export type { AuditRow } from './audit.js';
export { AuditLog } from './audit.js';
export type { RunEvent } from './events.js';
export type { Guards } from './guards.js';
export { DEFAULT_GUARDS } from './guards.js';
export type { HistoryEntry, HistoryShaper } from './hooks.js';
export type { MessageHit } from './read-model.js';
export { MATCH_END, MATCH_START } from './read-model.js';
export type { RunHandle, RunResult, StartOptions } from './runtime.js';
export { AgentRuntime } from './runtime.js';
export { isFinal } from './state.js';
export type { RunRow, StoredMessage, ToolCallRow } from './store.js';
export { originOf, RunStore } from './store.js';
