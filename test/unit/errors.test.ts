/**
 * The one error base: every error class of src/main extends PincerError (checked on the real
 * source, so a new class that forgets fails here), and each surface maps an error by its type.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { ManifestExistsError } from '../../src/main/core/ckp/default-manifest.js';
import { RpcError } from '../../src/main/core/ckp-server/jsonrpc.js';
import { InstanceLockedError } from '../../src/main/core/daemon/instance-lock.js';
import {
  CKP_ERRORS,
  categoryOfCkpCode,
  categoryOfHttpStatus,
  ckpCodeOf,
  ERROR_MAP,
  type ErrorCategory,
  err,
  httpStatusOf,
  ipcCodeOf,
  ok,
  PincerError,
  type Result,
} from '../../src/main/core/errors.js';
import { ModelError } from '../../src/main/core/models/errors.js';
import { toApiError } from '../../src/main/core/openai-server/errors.js';
import { SANDBOX_DENIED, SandboxError, TOOL_TIMEOUT } from '../../src/main/core/sandbox/errors.js';
import { SecretsError, VaultError } from '../../src/main/core/secrets/types.js';
import { SkillError } from '../../src/main/core/skills/errors.js';
import { ToolCallSyntaxError } from '../../src/main/core/toolcall/errors.js';
import { ToolError } from '../../src/main/core/tools/types.js';
import { ConfinementError } from '../../src/main/core/workspace-fs/errors.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
/** What JavaScript itself throws; a class extending one of these has left the base. */
const BUILTIN = new Set(['Error', 'TypeError', 'RangeError', 'SyntaxError', 'AggregateError']);

async function sources(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) => {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) return sources(full);
      return Promise.resolve(/\.tsx?$/.test(entry.name) ? [full] : []);
    }),
  );
  return nested.flat();
}

/** Every class declaration with an `extends`: its name, its parent's name and where it is. */
function classesOf(file: string, text: string): { name: string; parent: string; at: string }[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: { name: string; parent: string; at: string }[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isClassDeclaration(node) || ts.isClassExpression(node)) && node.name) {
      const heritage = node.heritageClauses?.find(
        (clause) => clause.token === ts.SyntaxKind.ExtendsKeyword,
      );
      const parent = heritage?.types[0]?.expression.getText(source);
      if (parent) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push({ name: node.name.text, parent, at: `${file}:${line + 1}` });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * The classes that are errors but do not reach PincerError: those named `...Error` and those
 * whose chain of parents (by name, across the files) reaches a built-in error first.
 */
function strayErrorClasses(files: ReadonlyArray<{ file: string; text: string }>): string[] {
  const classes = files.flatMap(({ file, text }) => classesOf(file, text));
  const parentOf = new Map(classes.map((c) => [c.name, c.parent]));
  const reachesBase = (name: string, seen = new Set<string>()): 'base' | 'builtin' | 'other' => {
    if (name === 'PincerError') return 'base';
    if (BUILTIN.has(name)) return 'builtin';
    const parent = parentOf.get(name);
    if (!parent || seen.has(name)) return 'other';
    seen.add(name);
    return reachesBase(parent, seen);
  };
  return classes
    .filter((c) => c.name !== 'PincerError')
    .filter((c) => {
      const reach = reachesBase(c.name);
      return reach === 'builtin' || (reach === 'other' && /Error$/.test(c.name));
    })
    .map((c) => `${c.at} ${c.name} extends ${c.parent}`);
}

describe('one error base', () => {
  it('every error class in src/main extends PincerError, directly or through another', async () => {
    const all = await Promise.all(
      (await sources(path.join(ROOT, 'src/main'))).map(async (file) => ({
        file: path.relative(ROOT, file),
        text: await readFile(file, 'utf8'),
      })),
    );
    // Only files that declare a subclass need parsing.
    const files = all.filter(({ text }) => /\bclass\b[^{]*\bextends\b/.test(text));
    const classes = files.flatMap(({ file, text }) => classesOf(file, text));
    // The scan sees the real classes (a broken scan would pass vacuously).
    expect(classes.map((c) => c.name)).toEqual(
      expect.arrayContaining(['ModelError', 'VaultError', 'RpcError', 'ConfinementError']),
    );
    expect(strayErrorClasses(files)).toEqual([]);
  });

  it('the check names a class that forgets the base, however it reaches Error', () => {
    const stray = strayErrorClasses([
      { file: 'a.ts', text: 'export class GoodError extends PincerError {}' },
      { file: 'b.ts', text: 'export class ForgotError extends Error {}' },
      { file: 'c.ts', text: 'class Sneaky extends TypeError {}\nclass Deeper extends Sneaky {}' },
      { file: 'd.ts', text: 'class LooseError extends SomethingElse {}' },
      { file: 'e.ts', text: 'class ChildError extends GoodError {}' },
    ]);
    expect(stray).toEqual([
      'b.ts:1 ForgotError extends Error',
      'c.ts:1 Sneaky extends TypeError',
      'c.ts:2 Deeper extends Sneaky',
      'd.ts:1 LooseError extends SomethingElse',
    ]);
  });

  it('module errors keep their own codes and names, and carry a category', () => {
    const skill = new SkillError('duplicate', 'two skills named x');
    expect(skill).toBeInstanceOf(PincerError);
    expect(skill).toMatchObject({ name: 'SkillError', code: 'duplicate', category: 'conflict' });
    const vault = new VaultError('tampered', 'the vault was changed', { cause: 'mac' });
    expect(vault).toBeInstanceOf(SecretsError);
    expect(vault).toMatchObject({ name: 'VaultError', category: 'internal', cause: 'mac' });
    expect(new InstanceLockedError(42)).toMatchObject({ code: 'already_running', pid: 42 });
    expect(new ManifestExistsError('claw.yaml').category).toBe('conflict');
    // Without a cause, none is installed (as Error itself does).
    expect('cause' in new SkillError('malformed', 'x')).toBe(false);
  });
});

describe('the one mapping', () => {
  const cases: Array<[string, unknown, { ipc: string; ckp: number; http: number }]> = [
    [
      'not found',
      new SkillError('not_found', 'no skill'),
      { ipc: 'not_found', ckp: -32602, http: 404 },
    ],
    [
      'too large',
      new ConfinementError('too_large', 'big'),
      { ipc: 'too_large', ckp: -32602, http: 413 },
    ],
    [
      'bad input',
      new ToolCallSyntaxError('x', 1, 1, 0),
      { ipc: 'invalid_request', ckp: -32602, http: 400 },
    ],
    ['a guard', new ConfinementError('outside', 'no'), { ipc: 'internal', ckp: -32010, http: 403 }],
    [
      'sandbox',
      new SandboxError(SANDBOX_DENIED, 'no'),
      { ipc: 'internal', ckp: -32010, http: 403 },
    ],
    [
      'deadline',
      new SandboxError(TOOL_TIMEOUT, 'late'),
      { ipc: 'internal', ckp: -32014, http: 504 },
    ],
    [
      'quota',
      new ModelError('quota_exceeded', 'spent'),
      { ipc: 'internal', ckp: -32021, http: 429 },
    ],
    [
      'a tool',
      new ToolError('blocked', SANDBOX_DENIED),
      { ipc: 'internal', ckp: -32010, http: 403 },
    ],
    ['a peer', new RpcError(-32601, 'no method'), { ipc: 'not_found', ckp: -32601, http: 404 }],
    ['plain', new Error('boom'), { ipc: 'internal', ckp: -32603, http: 500 }],
    // A look-alike is not a PincerError: codes are read by type, never by shape.
    [
      'look-alike',
      Object.assign(new Error('x'), { code: 'not_found' }),
      { ipc: 'internal', ckp: -32603, http: 500 },
    ],
    ['not an error', 'a string', { ipc: 'internal', ckp: -32603, http: 500 }],
  ];
  it.each(cases)('%s', (_label, error, expected) => {
    expect({ ipc: ipcCodeOf(error), ckp: ckpCodeOf(error), http: httpStatusOf(error) }).toEqual(
      expected,
    );
  });

  it('names a code for every category, and reads a status or a CKP code back', () => {
    for (const category of Object.keys(ERROR_MAP) as ErrorCategory[]) {
      const { http, ckp } = ERROR_MAP[category];
      expect(categoryOfHttpStatus(http)).toBe(category);
      expect(Object.values(CKP_ERRORS)).toContain(ckp);
    }
    expect(categoryOfHttpStatus(418)).toBe('invalid_request');
    expect(categoryOfHttpStatus(502)).toBe('internal');
    expect(categoryOfCkpCode(CKP_ERRORS.approvalDenied)).toBe('denied');
    expect(categoryOfCkpCode(-32000)).toBe('internal');
  });

  it('the OpenAI edge answers a PincerError by its category', () => {
    expect(toApiError(new ModelError('unknown_model', 'no such model'))).toMatchObject({
      status: 404,
      type: 'not_found_error',
      code: 'unknown_model',
    });
    expect(toApiError(new ConfinementError('not_file', 'a folder'))).toMatchObject({
      status: 400,
      type: 'invalid_request_error',
    });
    expect(toApiError(new Error('boom'))).toMatchObject({ status: 500, code: 'internal_error' });
  });
});

describe('Result', () => {
  it('is a value or a typed error, told apart by ok', () => {
    const parse = (text: string): Result<number, SkillError> =>
      /^\d+$/.test(text) ? ok(Number(text)) : err(new SkillError('malformed', `"${text}"`));
    const good = parse('42');
    const bad = parse('x');
    expect(good.ok && good.value).toBe(42);
    expect(!bad.ok && bad.error.code).toBe('malformed');
  });
});
