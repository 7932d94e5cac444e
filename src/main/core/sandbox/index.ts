/** The tool sandbox: see sandbox.ts for the executor and backend.ts for the backends. */

export { type BackendInfo, type BackendKind, detectBackend } from './backend.js';
export { LineSplitter, LineTooLongError } from './channel.js';
export { DEFAULT_PATH } from './environment.js';

export { settingsFromManifest } from './from-manifest.js';
export type { WorkerEntry } from './pool.js';
export {
  type ConfinedProcess,
  createSandbox,
  type Sandbox,
  type ServerSpec,
  type WorkerCounts,
} from './sandbox.js';
export { type SandboxSettings, sandboxSettings } from './settings.js';
