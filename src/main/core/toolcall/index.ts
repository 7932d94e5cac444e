/** Seed 000's compact tool-call language: parse, print, resolve references, JSON and GBNF. */
export * from './ast.js';
export {
  type DirectContextSources,
  directCallContext,
  readTypedInput,
  type TypedInput,
} from './direct.js';
export * from './errors.js';
export { type GbnfOptions, type GrammarSchema, type GrammarTool, toolCallGbnf } from './gbnf.js';
export {
  DEFAULT_MAX_DEPTH,
  DEFAULT_MAX_LENGTH,
  DEFAULT_NAMESPACES,
  isToolCall,
  type ParseOptions,
  parseToolCall,
  SEED_NAMESPACES,
} from './parser.js';
export { formatInvoke, formatToolCall, formatValue } from './print.js';
export {
  checkReferences,
  type ExecutionPlan,
  type PlanStep,
  planToolCall,
  type ResolveContext,
  type ResolvedCall,
  resolveCall,
  runToolCall,
} from './resolve.js';
export {
  type ExtractedToolCalls,
  extractToolCalls,
  formatNativeToolCall,
  fromNativeCall,
  fromNativeCalls,
  type NativeToolCall,
  nativeFromResolved,
  toNativeCalls,
} from './to-json.js';
