/** The memory module's public surface: what other modules import. */

export { memoryPolicyFromManifest } from './cognition.js';
export type { BuiltContext } from './context.js';
export { describeContext } from './context.js';
export { MemoryError } from './errors.js';
export type { FactScope } from './facts.js';
export { GLOBAL, parseScope, scopeKey } from './facts.js';
export { memoryNote } from './note-tool.js';
export type { OpenedMemory } from './open.js';
export { findEmbeddingModel, openMemoryDatabase, openProfileMemory } from './open.js';
export { durationMs, retentionFromManifest } from './retention.js';
export type { SessionMemory } from './session.js';
export { openSessionMemory } from './session.js';
export type { MemoryEffect } from './store.js';
export type { MemoryToolAccess } from './tool-access.js';
export { formatHit, memoryToolAccess, withMemory } from './tool-access.js';
