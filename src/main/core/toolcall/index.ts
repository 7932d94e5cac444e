/** Seed 000's compact tool-call language: parse, print, resolve references, JSON and GBNF. */
export type { ToolCallProgram } from './ast.js';
export { directCallContext, readTypedInput } from './direct.js';
export { isToolCallSyntaxError } from './errors.js';
export { toolCallGbnf } from './gbnf.js';

export { formatInvoke } from './print.js';
export { checkReferences, planToolCall, type ResolveContext, resolveCall } from './resolve.js';
export { extractToolCalls, fromNativeCall, toNativeCalls } from './to-json.js';
