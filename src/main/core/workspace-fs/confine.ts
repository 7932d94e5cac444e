/**
 * Path decisions on real paths, for the file tools and for everything the main process reads or
 * writes in the workspace (see files.ts): nothing reaches outside its root through `..`, an
 * absolute path, a symlink (a symlinked parent or a dangling link included) or a hard link.
 */
import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { ConfinementError } from './errors.js';

export type Access = 'read' | 'write';

/** The sandbox's grants and denials, as far as paths go (the tools' FilesystemScope). */
export interface ConfineScope {
  /** Absolute paths granted besides the workspace; `ro` ones refuse writes. */
  mounts: ReadonlyArray<{ path: string; mode: 'ro' | 'rw' }>;
  /** Absolute paths never reachable, unless a grant inside them says otherwise. */
  denied: readonly string[];
  readOnly?: boolean;
  none?: boolean;
}

export interface ConfineOptions {
  access?: Access;
  /** The sandbox's grants and denials; the workspace alone, read-write, when absent. */
  scope?: ConfineScope;
}

interface Root {
  real: string;
  mode: 'ro' | 'rw';
}

async function realOrSelf(target: string): Promise<string> {
  return realpath(target).catch(() => path.resolve(target));
}

/**
 * Resolves a path argument inside the workspace or a granted mount. Every decision is made on
 * real paths: the real path of the nearest existing ancestor must stay inside a real root, so
 * `..`, a symlink planted in the workspace or a symlinked parent cannot point at ~/.ssh. Denied
 * paths stay denied inside any grant except one nested deeper (the workspace inside the data
 * dir). Writes to a read-only grant are refused.
 */
export async function confine(
  workspace: string,
  input: unknown,
  name = 'path',
  options: ConfineOptions = {},
): Promise<string> {
  if (input !== undefined && typeof input !== 'string')
    throw new ConfinementError('invalid', `${name} must be a string`);
  const relative = (input as string | undefined) ?? '.';
  if (relative.includes('\u0000'))
    throw new ConfinementError('invalid', `${name} contains a null byte`);
  const scope = options.scope;
  if (scope?.none)
    throw new ConfinementError(
      'denied',
      'the sandbox grants no file access (filesystem mode deny)',
    );
  const roots: Root[] = [
    { real: await realpath(workspace), mode: scope?.readOnly ? 'ro' : 'rw' },
    ...(await Promise.all(
      (scope?.mounts ?? []).map(async (m) => ({ real: await realOrSelf(m.path), mode: m.mode })),
    )),
  ];
  const workspaceRoot = roots[0] as Root;
  const target = path.resolve(workspaceRoot.real, relative);
  const lexicalRoots = [
    workspaceRoot.real,
    ...(scope?.mounts ?? []).map((m) => path.resolve(m.path)),
  ];
  if (![...lexicalRoots, ...roots.map((r) => r.real)].some((root) => inside(root, target)))
    throw new ConfinementError('outside', `${name} "${relative}" is outside the workspace`);

  const real = await realTarget(target, relative, name);
  const root = roots
    .filter((r) => inside(r.real, real))
    .sort((a, b) => b.real.length - a.real.length)[0];
  if (!root) throw outThroughLink(name, relative);
  const denied = await Promise.all((scope?.denied ?? []).map(realOrSelf));
  const blocker = denied.find((d) => inside(d, real) && !inside(d, root.real));
  if (blocker)
    throw new ConfinementError('denied', `${name} "${relative}" is in a denied location`);
  if (options.access === 'write' && root.mode === 'ro')
    throw new ConfinementError('denied', `${name} "${relative}" is in a read-only location`);
  return real;
}

async function realTarget(target: string, relative: string, name: string): Promise<string> {
  let existing = target;
  while (true) {
    try {
      const real = await realpath(existing);
      return path.join(real, path.relative(existing, target));
    } catch {
      // A link whose target cannot be resolved may point anywhere (or, in the sandbox, at
      // something hidden from it): refused rather than guessed.
      if ((await lstat(existing).catch(() => undefined))?.isSymbolicLink())
        throw outThroughLink(name, relative);
      const parent = path.dirname(existing);
      if (parent === existing)
        throw new ConfinementError('not_found', `${name} "${relative}" cannot be resolved`);
      existing = parent;
    }
  }
}

/**
 * Hard links are invisible to realpath: a second name inside the workspace for a file outside
 * it looks like any workspace file. File tools therefore refuse regular files with more than
 * one link (inside the OS sandbox a tool cannot make one across a mount: link(2) gives EXDEV).
 */
export async function refuseHardLinks(file: string, shownPath: string): Promise<void> {
  const info = await lstat(file).catch(() => undefined);
  if (info?.isFile() && info.nlink > 1) throw hardLinked(shownPath, info.nlink);
}

export function hardLinked(shownPath: string, links: number): ConfinementError {
  return new ConfinementError(
    'hard_link',
    `"${shownPath}" has ${links} hard links; refused (a hard link can alias a file outside the workspace)`,
  );
}

export function outThroughLink(name: string, relative: string): ConfinementError {
  return new ConfinementError(
    'link',
    `${name} "${relative}" leads outside the workspace through a link`,
  );
}

/**
 * The real path `target` has or would have: the real path of its nearest existing ancestor
 * plus the rest. What a write would touch, seen through every link on the way.
 */
export async function realPathOf(target: string): Promise<string> {
  return realTarget(path.resolve(target), target, 'path');
}

export function inside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

/** The path as the model should see it: relative to the workspace. */
export function shown(workspace: string, absolute: string): string {
  return path.relative(workspace, absolute) || '.';
}
