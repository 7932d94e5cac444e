import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { resolveDataDir } from '../core/paths.js';

/** What every CLI command may need, resolved once at start. */
export interface CliContext {
  dataDir: string;
  /** The installed package's root (where its package.json and node_modules are). */
  appDir: string;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Exit codes: 0 fine, 1 the command failed, 2 bad usage, 3 capability not built yet. */
export const ExitCode = { ok: 0, failed: 1, usage: 2, notYet: 3 } as const;

export function defaultCliContext(): CliContext {
  return {
    dataDir: resolveDataDir(),
    appDir: findPackageRoot(path.dirname(fileURLToPath(import.meta.url))),
    stdout: process.stdout,
    stderr: process.stderr,
  };
}

/** dist/cli.js when installed, src/main/cli/ under tests: the nearest package.json above. */
function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'package.json'))) return dir;
    if (path.dirname(dir) === dir) return start;
  }
}
