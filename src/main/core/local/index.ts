/** The local module's public surface: what other modules import. */

export type { ModelCatalog } from './catalog.js';
export { findEntry, fitsMemory, recommendedChat } from './catalog.js';
export { localContextWindow } from './context-window.js';
export { NATIVE_LOAD_DEADLINE_MS, withDeadline } from './deadline.js';
export { LocalEmbedder, lazyLocalEmbedder } from './embeddings.js';
export type { LoadedModelInfo, LocalEngine } from './engine.js';
export { errorMessage, isLocalEngineError } from './errors.js';
export type { TurnSource } from './fair-gate.js';
export { FairGate } from './fair-gate.js';
export { inspectModelFile, type ModelFileFacts } from './gguf-check.js';
export { probeGpuMemory } from './gpu-memory.js';
export { grammarToolDefs, replyGrammar } from './grammar.js';
export type { ModelLocations, PullProgress, SkippedModel } from './model-manager.js';
export {
  chatModelFiles,
  listInstalled,
  modelPath,
  noModelHelp,
  pullModel,
  removeModel,
  resolveChatModel,
} from './model-manager.js';
export { prefixCacheDir, prefixCacheOption } from './prefix-store.js';
export { LocalModelProvider } from './provider.js';
export { loadRuntime } from './runtime.js';
export { schemaBoundsProblem } from './schema-bounds.js';
export { localSetup } from './setup.js';
export type {
  CompleteRequest,
  GenerateRequest,
  GenerateResult,
  LocalMessage,
  LocalStopReason,
  LocalToolCall,
  LocalToolDef,
  LocalUsage,
} from './types.js';
