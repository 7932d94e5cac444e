import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface BoundaryViolation {
  file: string;
  specifier: string;
  rule: string;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;

async function listSources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return listSources(full);
      return Promise.resolve(SOURCE.test(entry.name) ? [full] : []);
    }),
  );
  return nested.flat();
}

/**
 * The layers of the agent, lowest first (docs/ARCHITECTURE.md). A module may import its own
 * layer and those below; modules of one layer may depend on each other only without a cycle.
 * Modules are the folders of src/main/core (and its single-file modules), plus the surfaces
 * src/main/cli and src/main/app.
 */
export const LAYERS: readonly (readonly string[])[] = [
  [
    'errors',
    'storage',
    'ckp',
    'toolcall',
    'workspace-fs',
    'network',
    'terms',
    'dates',
    'paths',
    'product',
    'redaction',
  ],
  ['models', 'local', 'tools', 'policy', 'sandbox', 'secrets', 'mcp', 'a2a'],
  ['runtime', 'memory', 'skills', 'planning'],
  ['agent', 'telemetry'],
  [
    'assistant',
    'ipc',
    'gateway',
    'desktop',
    'doctor',
    'openai-server',
    'ckp-server',
    'mcp-server',
    'a2a-server',
    'channels',
    'daemon',
    'swarm',
    'cli',
    'app',
  ],
];

/** The module a source file belongs to, or undefined outside the layered tree. */
export function moduleOf(rel: string): string | undefined {
  const core = /^src\/main\/core\/([^/]+?)(?:\.[cm]?[jt]sx?$|\/)/.exec(rel);
  if (core) return core[1];
  const surface = /^src\/main\/(cli|app)(?:\.[cm]?[jt]sx?$|\/)/.exec(rel);
  return surface?.[1];
}

/**
 * The one file other modules import a folder module through (its index), or undefined for a
 * single-file module and for the surfaces, which nothing imports.
 */
function publicEntryOf(module: string, resolved: string): string | undefined {
  const folder = `src/main/core/${module}/`;
  return resolved.startsWith(folder) ? `${folder}index.js` : undefined;
}

/**
 * A dynamic `import()` may name a module's inner file: it is a deliberate lazy edge (a command
 * or an engine loaded on first use), and a barrel would load the whole module up front.
 */
function isLazy(text: string, pos: number): boolean {
  return /\bimport\s*\(\s*['"`]?$/.test(text.slice(Math.max(0, pos - 30), pos));
}

const layerOf = (module: string) => LAYERS.findIndex((layer) => layer.includes(module));

/** One cycle through `graph` (module -> modules it imports), or undefined when acyclic. */
export function findCycle(graph: ReadonlyMap<string, ReadonlySet<string>>): string[] | undefined {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | undefined => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (state.get(next) === 'open') return [...stack.slice(stack.indexOf(next)), next];
      if (!state.has(next)) {
        const found = visit(next);
        if (found) return found;
      }
    }
    stack.pop();
    state.set(node, 'done');
    return undefined;
  };
  for (const node of [...graph.keys()].sort()) {
    if (state.has(node)) continue;
    const found = visit(node);
    if (found) return found;
  }
  return undefined;
}

/**
 * The house rules of ARCHITECTURE.md, checked on real import graphs: TypeScript's own
 * pre-processor finds static imports, re-exports, dynamic `import()` and `require()`.
 */
export async function findBoundaryViolations(root: string): Promise<BoundaryViolation[]> {
  const srcRoot = path.join(root, 'src');
  const violations: BoundaryViolation[] = [];
  const modules = new Map<string, Set<string>>();
  for (const file of await listSources(srcRoot)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const text = await readFile(file, 'utf8');
    const { importedFiles } = ts.preProcessFile(text, true, true);
    for (const { fileName: specifier, pos } of importedFiles) {
      const resolved = specifier.startsWith('.')
        ? path
            .relative(root, path.resolve(path.dirname(file), specifier))
            .split(path.sep)
            .join('/')
        : null;
      const from = moduleOf(rel);
      const to = resolved ? moduleOf(resolved) : undefined;
      if (from && to && from !== to) {
        if (!modules.has(from)) modules.set(from, new Set());
        modules.get(from)?.add(to);
        const entry = publicEntryOf(to, resolved ?? '');
        if (entry && resolved !== entry && !isLazy(text, pos)) {
          violations.push({
            file: rel,
            specifier,
            rule: `module ${to} is imported through ${entry.replace(/\.js$/, '.ts')}`,
          });
        }
        const [above, below] = [layerOf(from), layerOf(to)];
        if (above < 0 || below < 0) {
          const unknown = above < 0 ? from : to;
          violations.push({ file: rel, specifier, rule: `module ${unknown} has no layer` });
        } else if (below > above) {
          violations.push({
            file: rel,
            specifier,
            rule: `layer order: ${from} (layer ${above}) imports ${to} (layer ${below})`,
          });
        }
      }
      const mayUseElectron = rel.startsWith('src/main/app/') || rel.startsWith('src/preload/');
      if ((specifier === 'electron' || specifier.startsWith('electron/')) && !mayUseElectron) {
        violations.push({
          file: rel,
          specifier,
          rule: 'only src/main/app and src/preload import electron',
        });
      }
      if (rel.startsWith('src/main/core/') && resolved) {
        if (resolved.startsWith('src/main/app/') || resolved === 'src/main/app') {
          violations.push({
            file: rel,
            specifier,
            rule: 'core must not import the Electron shell',
          });
        }
        if (resolved.startsWith('src/renderer/')) {
          violations.push({ file: rel, specifier, rule: 'core must not import the renderer' });
        }
      }
      if (rel.startsWith('src/shared/')) {
        if (specifier.startsWith('node:') || specifier === 'electron') {
          violations.push({
            file: rel,
            specifier,
            rule: 'shared code is pure: no node:, no electron',
          });
        }
        if (resolved && !resolved.startsWith('src/shared/')) {
          violations.push({ file: rel, specifier, rule: 'shared code imports only shared code' });
        }
      }
      if (
        rel.startsWith('src/renderer/') &&
        (specifier.startsWith('node:') || resolved?.startsWith('src/main/'))
      ) {
        violations.push({
          file: rel,
          specifier,
          rule: 'the renderer reaches the core only through IPC',
        });
      }
    }
  }
  const cycle = findCycle(modules);
  if (cycle) {
    violations.push({
      file: cycle[0] ?? '',
      specifier: '',
      rule: `import cycle: ${cycle.join(' -> ')}`,
    });
  }
  return violations;
}
