/**
 * What a confined server (an MCP server) sees of the host besides the system view, computed
 * from its command line, never guessed from a path's parent folder:
 * - a file inside a Node package: the package's folder (the nearest package.json, where Node
 *   finds the package's scope) and each dependency resolved from there as Node resolves it
 *   (node_modules folders up the tree, real paths, recursively), so a server installed with a
 *   plain `npm install` (its dependencies hoisted beside it) starts;
 * - a Python virtual environment's interpreter: the environment and the base installation its
 *   pyvenv.cfg names; a script beside a pyproject.toml or setup.py: that project folder;
 * - any other file: that file alone;
 * all read-only. A folder named on the command line is granted, exactly that folder. The home
 * folder, a folder above it and `/` are never shown whole, whatever points at them; symlinks on
 * the way are recreated as they are, so a path given through one still leads where it did.
 * The launcher applies the denials on top (a denial always wins over a grant).
 */
import { existsSync, lstatSync, readFileSync, readlinkSync, statSync } from 'node:fs';
import path from 'node:path';
import type { ViewEntry } from './system-view.js';

export interface ProgramView {
  /** The command line with a leading `~/` expanded (the server has a home of its own). */
  argv: string[];
  /** Real paths shown read-only: programs, packages, their dependencies, named files. */
  readOnly: string[];
  /** Folders named on the command line (real paths), granted as they are. */
  granted: string[];
  /** Symlinks met on the way to any of those, recreated where they are not already visible. */
  links: ViewEntry[];
}

export interface ProgramViewOptions {
  /** The user's home: it and the folders above it are never shown whole. */
  home: string;
  /** Stops a pathological dependency graph; far above any real server's. */
  maxPackages?: number;
}

const MAX_PACKAGES = 5000;
const MAX_LINK_HOPS = 40;
/** An npm package name: an optional scope and a name, no path steps. */
const PACKAGE_NAME = /^(@[a-z0-9][\w.~-]*\/)?[a-z0-9][\w.~-]*$/i;
const PYTHON_PROJECT = ['pyproject.toml', 'setup.py', 'setup.cfg'];

function inside(parent: string, child: string): boolean {
  const relative = path.relative(parent, child);
  return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
}

class ViewBuilder {
  readonly readOnly = new Set<string>();
  readonly granted = new Set<string>();
  readonly links = new Map<string, string>();
  private readonly packages = new Set<string>();

  constructor(private readonly options: ProgramViewOptions) {}

  /** The home, a folder above it, or the root: too wide to show whole. */
  tooWide(dir: string): boolean {
    return dir === '/' || inside(dir, path.resolve(this.options.home));
  }

  /**
   * The real path of `target`, resolving one component at a time and remembering each symlink
   * met (at its real location), so the sandbox can recreate the way there.
   */
  resolve(target: string): string | undefined {
    const parts = path.resolve(target).split('/').filter(Boolean);
    let real = '/';
    let hops = 0;
    while (parts.length > 0) {
      const next = path.join(real, parts.shift() as string);
      let info: ReturnType<typeof lstatSync>;
      try {
        info = lstatSync(next);
      } catch {
        return undefined;
      }
      if (!info.isSymbolicLink()) {
        real = next;
        continue;
      }
      if (++hops > MAX_LINK_HOPS) return undefined;
      const text = readlinkSync(next);
      this.links.set(next, text);
      parts.unshift(...path.resolve(real, text).split('/').filter(Boolean));
      real = '/';
    }
    return real;
  }

  argument(arg: string): void {
    if (!path.isAbsolute(arg)) return;
    const real = this.resolve(arg);
    if (real === undefined) return;
    const info = statSync(real);
    if (info.isDirectory()) {
      if (this.tooWide(real)) return;
      this.granted.add(real);
      // `node FOLDER` runs the package there: its dependencies must resolve too.
      if (existsSync(path.join(real, 'package.json'))) this.nodePackage(real);
      return;
    }
    if (!info.isFile()) return;
    const given = path.resolve(arg);
    const venv = this.pythonEnvironment(given);
    const pkg = this.packageScope(real);
    if (pkg !== undefined) this.nodePackage(pkg);
    else if (venv === undefined) this.readOnly.add(this.pythonProject(real) ?? real);
  }

  /** The nearest folder with a package.json, below the home and inside no node_modules. */
  private packageScope(file: string): string | undefined {
    for (let dir = path.dirname(file); ; dir = path.dirname(dir)) {
      if (this.tooWide(dir) || path.basename(dir) === 'node_modules') return undefined;
      if (existsSync(path.join(dir, 'package.json'))) return dir;
    }
  }

  /** The package folder and, recursively, each dependency resolved from its real path. */
  private nodePackage(root: string): void {
    const queue = [root];
    while (queue.length > 0) {
      const dir = queue.shift() as string;
      if (this.packages.has(dir)) continue;
      if (this.packages.size >= (this.options.maxPackages ?? MAX_PACKAGES)) return;
      this.packages.add(dir);
      this.readOnly.add(dir);
      for (const name of dependencyNames(dir)) {
        const found = this.lookUp(dir, name);
        if (found !== undefined && !this.packages.has(found)) queue.push(found);
      }
    }
  }

  /** Node's lookup: `node_modules/NAME` in the folder and each one above it. */
  private lookUp(from: string, name: string): string | undefined {
    for (let dir = from; ; dir = path.dirname(dir)) {
      if (path.basename(dir) !== 'node_modules') {
        const candidate = path.join(dir, 'node_modules', name);
        if (existsSync(path.join(candidate, 'package.json'))) {
          const real = this.resolve(candidate);
          return real !== undefined && !this.tooWide(real) ? real : undefined;
        }
      }
      if (path.dirname(dir) === dir) return undefined;
    }
  }

  /** `<venv>/bin/python`: the environment, and the installation its pyvenv.cfg names. */
  private pythonEnvironment(given: string): string | undefined {
    const bin = path.dirname(given);
    if (path.basename(bin) !== 'bin') return undefined;
    const venv = this.resolve(path.dirname(bin));
    if (venv === undefined || this.tooWide(venv)) return undefined;
    let config: string;
    try {
      config = readFileSync(path.join(venv, 'pyvenv.cfg'), 'utf8');
    } catch {
      return undefined;
    }
    this.readOnly.add(venv);
    const base = /^\s*home\s*=\s*(.+?)\s*$/m.exec(config)?.[1];
    if (base && path.isAbsolute(base) && path.basename(base) === 'bin') {
      const prefix = this.resolve(path.dirname(base));
      if (prefix !== undefined && !this.tooWide(prefix)) this.readOnly.add(prefix);
    }
    // The interpreter itself is usually a link out of the environment.
    const interpreter = this.resolve(given);
    if (interpreter !== undefined) this.readOnly.add(interpreter);
    return venv;
  }

  /** A script beside a pyproject.toml or setup.py runs as part of that project. */
  private pythonProject(file: string): string | undefined {
    if (!file.endsWith('.py')) return undefined;
    const dir = path.dirname(file);
    if (this.tooWide(dir)) return undefined;
    return PYTHON_PROJECT.some((name) => existsSync(path.join(dir, name))) ? dir : undefined;
  }
}

/** The names a package.json depends on at run time; anything not a plain package name is ignored. */
function dependencyNames(dir: string): string[] {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8'));
  } catch {
    return [];
  }
  if (typeof json !== 'object' || json === null) return [];
  const names = new Set<string>();
  for (const field of ['dependencies', 'optionalDependencies', 'peerDependencies']) {
    const listed = (json as Record<string, unknown>)[field];
    if (typeof listed !== 'object' || listed === null) continue;
    for (const name of Object.keys(listed)) if (PACKAGE_NAME.test(name)) names.add(name);
  }
  return [...names];
}

function expandHome(arg: string, home: string): string {
  if (arg === '~') return home;
  return arg.startsWith('~/') ? path.join(home, arg.slice(2)) : arg;
}

export function programView(argv: readonly string[], options: ProgramViewOptions): ProgramView {
  const builder = new ViewBuilder(options);
  const expanded = argv.map((arg) => expandHome(arg, options.home));
  for (const arg of expanded) builder.argument(arg);
  return {
    argv: expanded,
    readOnly: [...builder.readOnly],
    granted: [...builder.granted],
    links: [...builder.links].map(([at, link]) => ({ path: at, link })),
  };
}
