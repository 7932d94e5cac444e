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

/** The file a relative specifier names, as a repo-relative path without extension. */
function resolveSpecifier(fromRel: string, specifier: string): string {
  const joined = path.posix.normalize(path.posix.join(path.posix.dirname(fromRel), specifier));
  return joined.replace(/\.(?:[cm]?[jt]sx?)$/, '');
}

interface IndexExports {
  /** Names exported by name (re-exports, declarations, `export default`). */
  names: Set<string>;
  /** Of those, the names passed on from other files (`export { a } from`, `export { a }`). */
  reexported: Set<string>;
  /** Modules re-exported wholesale by `export *` (repo-relative, without extension). */
  star: string[];
}

function hasExportModifier(node: ts.Node): boolean {
  return (
    ts.canHaveModifiers(node) &&
    (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword)
  );
}

function bindingNames(name: ts.BindingName, into: Set<string>): void {
  if (ts.isIdentifier(name)) into.add(name.text);
  else
    for (const element of name.elements)
      if (!ts.isOmittedExpression(element)) bindingNames(element.name, into);
}

/** What one file exports, read from its syntax alone. */
export function exportsOf(fileName: string, text: string, rel: string): IndexExports {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false);
  const names = new Set<string>();
  const reexported = new Set<string>();
  const star: string[] = [];
  const imported = new Set<string>();
  for (const statement of source.statements) {
    const bindings = ts.isImportDeclaration(statement) ? statement.importClause : undefined;
    if (bindings?.name) imported.add(bindings.name.text);
    const named = bindings?.namedBindings;
    if (named && ts.isNamedImports(named))
      for (const el of named.elements) imported.add(el.name.text);
  }
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement)) {
      const from = statement.moduleSpecifier;
      if (!statement.exportClause) {
        if (from && ts.isStringLiteral(from)) star.push(resolveSpecifier(rel, from.text));
      } else if (ts.isNamespaceExport(statement.exportClause)) {
        names.add(statement.exportClause.name.text);
        reexported.add(statement.exportClause.name.text);
      } else {
        for (const element of statement.exportClause.elements) {
          names.add(element.name.text);
          const local = (element.propertyName ?? element.name).text;
          if (statement.moduleSpecifier || imported.has(local)) reexported.add(element.name.text);
        }
      }
    } else if (ts.isExportAssignment(statement)) {
      names.add('default');
    } else if (hasExportModifier(statement)) {
      if (ts.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations)
          bindingNames(declaration.name, names);
      } else if (
        (ts.isFunctionDeclaration(statement) ||
          ts.isClassDeclaration(statement) ||
          ts.isInterfaceDeclaration(statement) ||
          ts.isTypeAliasDeclaration(statement) ||
          ts.isEnumDeclaration(statement) ||
          ts.isModuleDeclaration(statement)) &&
        statement.name
      ) {
        const isDefault = (ts.getModifiers(statement) ?? []).some(
          (m) => m.kind === ts.SyntaxKind.DefaultKeyword,
        );
        names.add(isDefault ? 'default' : statement.name.text);
      }
    }
  }
  return { names, reexported, star };
}

/** A use of every name (a namespace import, a dynamic import read whole). */
const EVERY = '*';

/**
 * The names one file takes from each module it imports: `import { a }`, `export { a } from`,
 * `import type`, `import('...').A` in a type, and `const { a } = await import(...)` or
 * `(await import(...)).a`; a namespace import or any other dynamic use counts as every name.
 */
export function importsOf(fileName: string, text: string, rel: string): Map<string, Set<string>> {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const uses = new Map<string, Set<string>>();
  const use = (specifier: string, name: string) => {
    if (!specifier.startsWith('.')) return;
    const target = resolveSpecifier(rel, specifier);
    if (!uses.has(target)) uses.set(target, new Set());
    uses.get(target)?.add(name);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const clause = node.importClause;
      if (clause?.name) use(specifier, 'default');
      const bindings = clause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) use(specifier, EVERY);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements)
          use(specifier, (element.propertyName ?? element.name).text);
      }
      if (!clause) use(specifier, '');
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      const specifier = node.moduleSpecifier.text;
      const clause = node.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) use(specifier, EVERY);
      else
        for (const element of clause.elements)
          use(specifier, (element.propertyName ?? element.name).text);
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      const qualifier = node.qualifier;
      const first = qualifier
        ? ts.isIdentifier(qualifier)
          ? qualifier
          : leftmost(qualifier)
        : undefined;
      use(node.argument.literal.text, first ? first.text : EVERY);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      const specifier = node.arguments[0].text;
      let outer: ts.Node = node.parent;
      if (ts.isAwaitExpression(outer)) outer = outer.parent;
      while (ts.isParenthesizedExpression(outer)) outer = outer.parent;
      if (ts.isVariableDeclaration(outer) && ts.isObjectBindingPattern(outer.name)) {
        for (const element of outer.name.elements) {
          const key = element.propertyName ?? element.name;
          use(specifier, ts.isIdentifier(key) ? key.text : EVERY);
        }
      } else if (ts.isPropertyAccessExpression(outer)) {
        use(specifier, outer.name.text);
      } else {
        use(specifier, EVERY);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return uses;
}

function leftmost(name: ts.EntityName): ts.Identifier {
  return ts.isIdentifier(name) ? name : leftmost(name.left);
}

/**
 * A folder module's index is its whole public surface, so it says what it exports by name and
 * exports only what other source modules use. `export *` hides the surface and lets every inner
 * name leak out; an export no other module imports is surface nobody needs. The users counted
 * are the source files outside the folder (other modules, `cli/`, `app/`); tests and benchmarks
 * do not count: they may import inner files directly, so nothing is exported only for them.
 *
 * So: no index.ts under src/ has `export *`, and a folder module's index (src/main/core/NAME)
 * passes on no name that no source file outside the folder imports. Names the index declares
 * itself are its own code, which only it can export, so only re-exports are counted.
 */
function indexViolations(
  indexes: ReadonlyMap<string, IndexExports>,
  importers: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<string>>>,
): BoundaryViolation[] {
  const found: BoundaryViolation[] = [];
  for (const [rel, exports] of indexes) {
    for (const star of exports.star) {
      const specifier = `./${path.posix.relative(path.posix.dirname(rel), star)}.js`;
      found.push({ file: rel, specifier, rule: 'an index names what it exports: no export *' });
    }
    const folder = /^src\/main\/core\/[^/]+\//.exec(rel)?.[0];
    if (!folder || rel !== `${folder}index.ts`) continue;
    const entry = rel.replace(/\.ts$/, '');
    const used = new Set<string>();
    for (const [user, uses] of importers) {
      if (user.startsWith('src/') && !user.startsWith(folder)) {
        for (const name of uses.get(entry) ?? []) used.add(name);
      }
    }
    if (used.has(EVERY)) continue;
    for (const name of [...exports.reexported].sort()) {
      if (!used.has(name)) {
        found.push({
          file: rel,
          specifier: name,
          rule: `index exports ${name}, which no other module uses`,
        });
      }
    }
  }
  return found;
}

/**
 * The house rules of ARCHITECTURE.md, checked on real import graphs: TypeScript's own
 * pre-processor finds static imports, re-exports, dynamic `import()` and `require()`.
 */
export async function findBoundaryViolations(root: string): Promise<BoundaryViolation[]> {
  const srcRoot = path.join(root, 'src');
  const violations: BoundaryViolation[] = [];
  const modules = new Map<string, Set<string>>();
  const indexes = new Map<string, IndexExports>();
  const importers = new Map<string, Map<string, Set<string>>>();
  for (const file of await listSources(srcRoot)) {
    const rel = path.relative(root, file).split(path.sep).join('/');
    const text = await readFile(file, 'utf8');
    importers.set(rel, importsOf(file, text, rel));
    if (path.posix.basename(rel) === 'index.ts') indexes.set(rel, exportsOf(file, text, rel));
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
  violations.push(...indexViolations(indexes, importers));
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
