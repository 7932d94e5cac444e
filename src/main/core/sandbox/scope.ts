/** The parts of the sandbox settings that JS tools enforce themselves (paths, hosts). */
import type { FilesystemScope, NetworkScope } from '../tools/index.js';
import type { SandboxSettings } from './settings.js';

export function filesystemScope(settings: SandboxSettings): FilesystemScope {
  return {
    mounts: settings.filesystem.mounts.map((m) => ({ path: m.path, mode: m.mode })),
    denied: [...settings.filesystem.denied],
    readOnly: settings.filesystem.mode === 'read-only',
    none: settings.filesystem.mode === 'deny',
  };
}

export function networkScope(settings: SandboxSettings): NetworkScope {
  return {
    mode: settings.network.mode,
    allowedHosts: [...settings.network.allowedHosts],
    blockPrivate: settings.network.blockPrivate,
  };
}
