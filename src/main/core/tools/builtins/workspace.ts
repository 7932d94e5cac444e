import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { ToolError } from '../types.js';

/**
 * Resolves a path argument inside the workspace. `..` escapes and symlinks that lead outside
 * are refused: the real path of the nearest existing ancestor must stay inside the real
 * workspace, so a link planted in the workspace cannot point a write at ~/.ssh.
 */
export async function confine(workspace: string, input: unknown, name = 'path'): Promise<string> {
  if (input !== undefined && typeof input !== 'string')
    throw new ToolError(`${name} must be a string`);
  const relative = (input as string | undefined) ?? '.';
  if (relative.includes('\u0000')) throw new ToolError(`${name} contains a null byte`);
  const root = await realpath(workspace);
  const target = path.resolve(root, relative);
  if (!inside(root, target)) throw new ToolError(`${name} "${relative}" is outside the workspace`);
  let existing = target;
  while (true) {
    try {
      const real = await realpath(existing);
      if (!inside(root, real))
        throw new ToolError(`${name} "${relative}" leads outside the workspace through a link`);
      return path.join(real, path.relative(existing, target));
    } catch (error) {
      if (error instanceof ToolError) throw error;
      const parent = path.dirname(existing);
      if (parent === existing) throw new ToolError(`${name} "${relative}" cannot be resolved`);
      existing = parent;
    }
  }
}

function inside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The path as the model should see it: relative to the workspace. */
export function shown(workspace: string, absolute: string): string {
  return path.relative(workspace, absolute) || '.';
}
