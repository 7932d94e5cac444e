/** The tools module's public surface: what other modules import. */
export { sysExec } from './builtins/exec.js';
export { fsRead } from './builtins/fs.js';
export { BUILTIN_TOOLS } from './builtins/index.js';
export { checkHop, pinnedLookup } from './builtins/net.js';
export type { ToolHost, ToolOutcome } from './host.js';
export { ToolRegistry } from './registry.js';
export { runTool } from './run-tool.js';
export type {
  CommandRequest,
  CommandRunner,
  FilesystemScope,
  MemoryToolAccess,
  NetworkScope,
  Tool,
  ToolContext,
  ToolExecutor,
  ToolOutput,
} from './types.js';
export { inProcessExecutor, ToolError } from './types.js';
