/**
 * Strict recursive-descent parser of seed 000's tool-call BNF. There is no free-form fallback:
 * any input that is not exactly one `<tool-call>` is refused with a ToolCallSyntaxError, and
 * nothing else ever escapes (unexpected failures are wrapped).
 */
import type { Param, ParamValue, Position, Span, ToolCallProgram, ToolInvoke } from './ast.js';
import { ToolCallSyntaxError } from './errors.js';
import { describeFound, Lexer, type Token, type TokenKind } from './lexer.js';

/** `<namespace>` of the seed's BNF. */
export const SEED_NAMESPACES = ['fs', 'net', 'sys', 'code', 'data', 'ui'] as const;
/** The BNF's namespaces plus `memory`, which the built-in `memory/search` tool needs. */
export const DEFAULT_NAMESPACES: readonly string[] = [...SEED_NAMESPACES, 'memory'];
export const DEFAULT_MAX_LENGTH = 64 * 1024;
export const DEFAULT_MAX_DEPTH = 32;

export interface ParseOptions {
  /** Namespaces accepted in `@ns/tool`; default DEFAULT_NAMESPACES. */
  namespaces?: readonly string[];
  /** Longest input accepted, in UTF-16 units; default 64 KiB. */
  maxLength?: number;
  /** Deepest array nesting accepted; default 32. */
  maxDepth?: number;
}

const SHOW: Partial<Record<TokenKind, string>> = {
  tool: "'@tool{'",
  eof: 'end of input',
};
const show = (kind: TokenKind) => SHOW[kind] ?? `'${kind}'`;

function list(items: string[]): string {
  if (items.length <= 1) return items.join('');
  return `${items.slice(0, -1).join(', ')} or ${items[items.length - 1]}`;
}

class Parser {
  private tok: Token;
  private readonly lexer: Lexer;
  private readonly namespaces: readonly string[];
  private readonly maxDepth: number;

  constructor(src: string, options: ParseOptions) {
    this.lexer = new Lexer(src);
    this.namespaces = options.namespaces ?? DEFAULT_NAMESPACES;
    this.maxDepth = options.maxDepth ?? DEFAULT_MAX_DEPTH;
    this.tok = this.lexer.next();
  }

  /** A method, not a field read, so TypeScript does not narrow it across take(). */
  private peek(): TokenKind {
    return this.tok.kind;
  }

  private advance(): Token {
    const current = this.tok;
    this.tok = this.lexer.next();
    return current;
  }

  private fail(expected: string[], context: string, at: Token = this.tok): never {
    const found = at.kind === 'eof' ? 'end of input' : describeFound(at.text);
    throw new ToolCallSyntaxError(
      `expected ${list(expected)}${context ? ` ${context}` : ''}, found ${found}`,
      at.start.line,
      at.start.column,
      at.start.offset,
      expected,
      found,
    );
  }

  private expect(kind: TokenKind, context: string): Token {
    if (this.peek() !== kind) this.fail([show(kind)], context);
    return this.take();
  }

  /** End of the last token consumed: where the node being built ends. */
  private lastEnd: Position = { line: 1, column: 1, offset: 0 };

  private span(start: Position, end: Position = this.lastEnd): Span {
    return { start, end };
  }

  private take(): Token {
    const token = this.advance();
    this.lastEnd = token.end;
    return token;
  }

  program(): ToolCallProgram {
    let program: ToolCallProgram;
    if (this.peek() === '[') {
      program = this.parallel();
    } else if (this.peek() === 'tool') {
      const first = this.invoke();
      const calls = [first];
      while (this.peek() === '->') {
        this.take();
        if (this.peek() !== 'tool') this.fail([show('tool')], "after '->'");
        calls.push(this.invoke());
      }
      program =
        calls.length === 1 ? first : { kind: 'chain', calls, span: this.span(first.span.start) };
    } else {
      this.fail([show('tool'), "'['"], 'at start of tool call');
    }
    if (this.peek() !== 'eof') {
      const expected = program.kind === 'parallel' ? ['end of input'] : ["'->'", 'end of input'];
      this.fail(expected, 'after tool call');
    }
    return program;
  }

  private parallel(): ToolCallProgram {
    const open = this.take();
    const calls: ToolInvoke[] = [];
    for (;;) {
      if (this.peek() !== 'tool')
        this.fail([show('tool')], calls.length ? "after ','" : "after '['");
      calls.push(this.invoke());
      if (this.peek() === ']') break;
      if (this.peek() !== ',') this.fail(["','", "']'"], 'after call in parallel group');
      this.take();
    }
    this.take();
    return { kind: 'parallel', calls, span: this.span(open.start) };
  }

  private invoke(): ToolInvoke {
    const head = this.take();
    if (head.prefix !== undefined && !this.namespaces.includes(head.prefix)) {
      const expected = this.namespaces.map((ns) => `'${ns}'`);
      throw new ToolCallSyntaxError(
        `unknown namespace '${head.prefix}' (expected ${list(expected)})`,
        head.start.line,
        head.start.column + 1,
        head.start.offset + 1,
        expected,
        `'${head.prefix}'`,
      );
    }
    if (this.peek() !== '{') this.fail(["'{'"], `after tool name '${head.text.slice(1)}'`);
    this.take();
    const params: Param[] = [];
    if (this.peek() === '}') {
      this.take();
    } else {
      const seen = new Set<string>();
      for (;;) {
        params.push(this.param(seen));
        if (this.peek() === '}') break;
        if (this.peek() !== ';') this.fail(["';'", "'}'"], 'after argument value');
        this.take();
      }
      this.take();
    }
    const tool = head.prefix === undefined ? head.value : `${head.prefix}/${head.value}`;
    return {
      kind: 'invoke',
      ...(head.prefix === undefined ? {} : { namespace: head.prefix }),
      name: head.value,
      tool,
      params,
      span: this.span(head.start),
    };
  }

  private param(seen: Set<string>): Param {
    if (this.peek() !== 'ident') {
      this.fail(
        ['argument name', ...(seen.size === 0 ? ["'}'"] : [])],
        seen.size ? "after ';'" : "after '{'",
      );
    }
    const key = this.take();
    if (seen.has(key.value)) {
      throw new ToolCallSyntaxError(
        `duplicate argument '${key.value}'`,
        key.start.line,
        key.start.column,
        key.start.offset,
        [],
        `'${key.value}'`,
      );
    }
    seen.add(key.value);
    this.expect('=', `after argument name '${key.value}'`);
    const value = this.value(0, `for argument '${key.value}'`);
    return {
      key: key.value,
      keySpan: this.span(key.start, key.end),
      value,
      span: this.span(key.start, value.span.end),
    };
  }

  private value(depth: number, context: string): ParamValue {
    const t = this.tok;
    switch (t.kind) {
      case 'string':
        this.take();
        return { kind: 'string', value: t.value, span: this.span(t.start, t.end) };
      case 'integer':
      case 'float':
      case 'hex':
        this.take();
        return { kind: t.kind, value: t.number ?? 0, span: this.span(t.start, t.end) };
      case 'reference':
        this.take();
        return {
          kind: 'reference',
          scope: t.prefix as 'prev' | 'ctx' | 'env' | 'self',
          name: t.value,
          span: this.span(t.start, t.end),
        };
      case 'ident':
        if (t.value === 'true' || t.value === 'yes' || t.value === 'false' || t.value === 'no') {
          this.take();
          const value = t.value === 'true' || t.value === 'yes';
          return { kind: 'boolean', value, span: this.span(t.start, t.end) };
        }
        break;
      case '(':
        return this.array(depth + 1);
      default:
        break;
    }
    return this.fail(['a value (string, number, boolean, array or $reference)'], context);
  }

  private array(depth: number): ParamValue {
    const open = this.tok;
    if (depth > this.maxDepth) {
      throw new ToolCallSyntaxError(
        `arrays nested deeper than ${this.maxDepth}`,
        open.start.line,
        open.start.column,
        open.start.offset,
        [],
        "'('",
      );
    }
    this.take();
    const items: ParamValue[] = [];
    for (;;) {
      items.push(this.value(depth, items.length ? "after ','" : "after '('"));
      if (this.peek() === ')') break;
      if (this.peek() !== ',') this.fail(["','", "')'"], 'after array item');
      this.take();
    }
    const close = this.take();
    return { kind: 'array', items, span: this.span(open.start, close.end) };
  }
}

/** Parses exactly one `<tool-call>`; throws ToolCallSyntaxError and nothing else. */
export function parseToolCall(text: string, options: ParseOptions = {}): ToolCallProgram {
  if (typeof text !== 'string') {
    throw new ToolCallSyntaxError(
      'input is not a string',
      1,
      1,
      0,
      [],
      describeFound(String(text)),
    );
  }
  const maxLength = options.maxLength ?? DEFAULT_MAX_LENGTH;
  if (text.length > maxLength) {
    throw new ToolCallSyntaxError(
      `input is ${text.length} characters long; the limit is ${maxLength}`,
      1,
      1,
      0,
      [],
      'oversized input',
    );
  }
  try {
    return new Parser(text, options).program();
  } catch (error) {
    if (error instanceof ToolCallSyntaxError) throw error;
    // Never let an internal failure (e.g. a stack overflow) escape untyped.
    const detail = error instanceof Error ? error.message : String(error);
    throw new ToolCallSyntaxError(`cannot parse tool call: ${detail}`, 1, 1, 0, [], '');
  }
}

/** Whether text is exactly one valid tool call. */
export function isToolCall(text: string, options: ParseOptions = {}): boolean {
  try {
    parseToolCall(text, options);
    return true;
  } catch {
    return false;
  }
}
