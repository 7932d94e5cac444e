/** The tool sandbox (#8): see sandbox.ts for the executor and backend.ts for the backends. */
export { isPrivateAddress } from '../network/index.js';
export { assertLevel, type BackendInfo, type BackendKind, detectBackend } from './backend.js';
export { LineSplitter, LineTooLongError } from './channel.js';
export { DEFAULT_PATH } from './environment.js';
export { SANDBOX_DENIED, SandboxError, TOOL_TIMEOUT } from './errors.js';
export { settingsFromManifest, settingsFromSandbox } from './from-manifest.js';
export type { WorkerEntry } from './pool.js';
export type { ConfinedProcess, ServerSpec } from './sandbox.js';
export { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';
export { type SandboxSettings, sandboxSettings } from './settings.js';
