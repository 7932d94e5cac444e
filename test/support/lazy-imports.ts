/**
 * Every lazy `import()` of a package in the source, with the names the code reads from it, found
 * by parsing (the TypeScript compiler's syntax tree), so the bundle interop test can check that
 * the built bundle gives those names as plain Node does.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';

export interface LazyImport {
  /** Source file, relative to the repository root, with forward slashes. */
  file: string;
  line: number;
  specifier: string;
  /** The export names the code reads; null when the analysis cannot tell (the namespace escapes). */
  names: string[] | null;
  /** Why names is null. */
  unknown?: string;
}

const SOURCE = /\.(ts|tsx|mts|cts)$/;

async function listSources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return listSources(full);
      return Promise.resolve(
        SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : [],
      );
    }),
  );
  return nested.flat();
}

/** A package specifier: not relative, not absolute, not a Node built-in scheme. */
export function isPackageSpecifier(specifier: string): boolean {
  return !/^(\.|\/|node:|data:|file:)/.test(specifier);
}

/** The lazy package imports of every source file under `dirs` (relative to `root`). */
export async function findLazyPackageImports(root: string, dirs: string[]): Promise<LazyImport[]> {
  const files = (await Promise.all(dirs.map((dir) => listSources(path.join(root, dir))))).flat();
  const found: LazyImport[] = [];
  for (const file of files.sort()) {
    const text = await readFile(file, 'utf8');
    if (!text.includes('import(')) continue;
    found.push(...lazyImportsOf(path.relative(root, file).split(path.sep).join('/'), text));
  }
  return found;
}

/** The lazy package imports of one source text. */
export function lazyImportsOf(file: string, text: string): LazyImport[] {
  const kind = file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: LazyImport[] = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0]) &&
      isPackageSpecifier(node.arguments[0].text)
    ) {
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      const use = namesReadFrom(node, source);
      found.push({
        file,
        line,
        specifier: node.arguments[0].text,
        names: use.names,
        ...(use.unknown ? { unknown: use.unknown } : {}),
      });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

interface Use {
  names: string[] | null;
  unknown?: string;
}

const unknown = (node: ts.Node, why: string): Use => ({
  names: null,
  unknown: `${why}: ${node.getText().slice(0, 80)}`,
});

/** Steps out of what does not change the value: parentheses, await, casts, `!`. */
function outermost(node: ts.Expression): ts.Expression {
  let at: ts.Expression = node;
  for (;;) {
    const parent = at.parent;
    if (
      ts.isParenthesizedExpression(parent) ||
      ts.isAwaitExpression(parent) ||
      ts.isAsExpression(parent) ||
      ts.isSatisfiesExpression(parent) ||
      ts.isNonNullExpression(parent) ||
      ts.isTypeAssertionExpression(parent)
    ) {
      at = parent;
    } else {
      return at;
    }
  }
}

function namesReadFrom(call: ts.CallExpression, source: ts.SourceFile): Use {
  const value = outermost(call);
  const parent = value.parent;
  // (await import('x')).name, or import('x').then((ns) => ...)
  if (ts.isPropertyAccessExpression(parent) && parent.expression === value) {
    const name = parent.name.text;
    if (name !== 'then' || ts.isAwaitExpression(value) || value !== call) return { names: [name] };
    const then = parent.parent;
    const callback = ts.isCallExpression(then) ? then.arguments[0] : undefined;
    if (!callback || !(ts.isArrowFunction(callback) || ts.isFunctionExpression(callback)))
      return unknown(then, 'then() without a function');
    const param = callback.parameters[0];
    if (!param) return { names: [] };
    return bindingNames(param.name, callback.body, source);
  }
  if (ts.isElementAccessExpression(parent) && parent.expression === value) {
    const key = parent.argumentExpression;
    return ts.isStringLiteralLike(key) ? { names: [key.text] } : unknown(parent, 'computed key');
  }
  if (ts.isVariableDeclaration(parent) && parent.initializer === value) {
    return bindingNames(parent.name, scopeOf(parent), source);
  }
  return unknown(parent, 'the namespace is used as a value');
}

function scopeOf(node: ts.Node): ts.Node {
  let at = node.parent;
  while (at && !ts.isBlock(at) && !ts.isSourceFile(at) && !ts.isFunctionLike(at)) at = at.parent;
  return at ?? node.getSourceFile();
}

function bindingNames(name: ts.BindingName, scope: ts.Node, source: ts.SourceFile): Use {
  if (ts.isObjectBindingPattern(name)) {
    const names: string[] = [];
    for (const element of name.elements) {
      if (element.dotDotDotToken) return unknown(element, 'rest of the namespace');
      const key = element.propertyName ?? element.name;
      if (ts.isIdentifier(key) || ts.isStringLiteralLike(key)) names.push(key.text);
      else return unknown(element, 'computed key');
    }
    return { names };
  }
  if (ts.isIdentifier(name)) return namesReadThrough(name, scope, source);
  return unknown(name, 'array pattern');
}

/** The names read from a variable holding the namespace, in its scope. */
function namesReadThrough(binding: ts.Identifier, scope: ts.Node, source: ts.SourceFile): Use {
  const names = new Set<string>();
  let problem: Use | undefined;
  const visit = (node: ts.Node): void => {
    if (problem) return;
    if (ts.isIdentifier(node) && node.text === binding.text && node !== binding) {
      const use = readingOf(node, binding.text, source);
      if (use.names === null) problem = use;
      else for (const name of use.names) names.add(name);
    }
    ts.forEachChild(node, visit);
  };
  visit(scope);
  return problem ?? { names: [...names].sort() };
}

function readingOf(id: ts.Identifier, variable: string, source: ts.SourceFile): Use {
  const parent = id.parent;
  // ns.name (but not a property named like the variable: other.ns)
  if (ts.isPropertyAccessExpression(parent)) {
    if (parent.name === id) return { names: [] };
    return { names: [parent.name.text] };
  }
  if (ts.isElementAccessExpression(parent) && parent.expression === id) {
    const key = parent.argumentExpression;
    return ts.isStringLiteralLike(key) ? { names: [key.text] } : unknown(parent, 'computed key');
  }
  if (ts.isPropertyAssignment(parent) && parent.name === id) return { names: [] };
  const value = outermost(id);
  const holder = value.parent;
  // `ns.default ?? ns`: the CommonJS interop idiom; the names read are those of `default`.
  if (
    ts.isBinaryExpression(holder) &&
    holder.operatorToken.kind === ts.SyntaxKind.QuestionQuestionToken &&
    holder.right === value &&
    ts.isPropertyAccessExpression(holder.left) &&
    holder.left.name.text === 'default' &&
    ts.isIdentifier(holder.left.expression) &&
    holder.left.expression.text === variable
  ) {
    return { names: [] };
  }
  // this.field = ns: the names read through this.field anywhere in the class.
  if (
    ts.isBinaryExpression(holder) &&
    holder.operatorToken.kind === ts.SyntaxKind.EqualsToken &&
    holder.right === value &&
    ts.isPropertyAccessExpression(holder.left) &&
    holder.left.expression.kind === ts.SyntaxKind.ThisKeyword
  ) {
    const field = holder.left.name.text;
    const klass = ts.findAncestor(holder, ts.isClassLike) ?? source;
    const names = new Set<string>();
    const visit = (node: ts.Node): void => {
      if (
        ts.isPropertyAccessExpression(node) &&
        ts.isPropertyAccessExpression(node.expression) &&
        node.expression.expression.kind === ts.SyntaxKind.ThisKeyword &&
        node.expression.name.text === field
      ) {
        names.add(node.name.text);
      }
      ts.forEachChild(node, visit);
    };
    visit(klass);
    return { names: [...names] };
  }
  return unknown(holder, 'the namespace is used as a value');
}
