/**
 * Conversion between the compact language and the native JSON tool-call form
 * (`{"name": "fs/read", "arguments": {...}}`, Qwen's `<tool_call>...</tool_call>`), and
 * extraction of tool calls from a text-only provider's reply.
 *
 * Delimiter convention for text replies (what a system prompt tells such a model to write):
 *  - a fenced block whose info string is `toolcall` holds exactly one program (may span lines);
 *  - a line starting (column 1) with `@` or `[@` is one program on that line;
 *  - `<tool_call>{json}</tool_call>` blocks are native calls, converted to programs.
 * Everything else is prose. A delimited call that does not parse is an error (no fallback),
 * reported at its line and column in the whole reply.
 */
import type { ParamValue, Position, Span, ToolCallProgram, ToolInvoke } from './ast.js';
import { programCalls } from './ast.js';
import { ToolCallEncodeError, ToolCallSyntaxError } from './errors.js';
import { DEFAULT_NAMESPACES, type ParseOptions, parseToolCall } from './parser.js';
import type { ResolvedCall } from './resolve.js';

export interface NativeToolCall {
  name: string;
  arguments: Record<string, unknown>;
}

const IDENT = /^[A-Za-z][A-Za-z0-9_-]*$/;
const ORIGIN: Position = { line: 1, column: 1, offset: 0 };
const NO_SPAN: Span = { start: ORIGIN, end: ORIGIN };

function valueToJson(value: ParamValue, tool: string): unknown {
  switch (value.kind) {
    case 'array':
      return value.items.map((item) => valueToJson(item, tool));
    case 'reference':
      throw new ToolCallEncodeError(
        `${tool}: $${value.scope}.${value.name} must be resolved before conversion to JSON`,
      );
    default:
      return value.value;
  }
}

/** Native calls of a program without references (resolve those with resolveCall first). */
export function toNativeCalls(program: ToolCallProgram): NativeToolCall[] {
  return programCalls(program).map((call) => ({
    name: call.tool,
    arguments: Object.fromEntries(call.params.map((p) => [p.key, valueToJson(p.value, call.tool)])),
  }));
}

export function nativeFromResolved(call: ResolvedCall): NativeToolCall {
  return { name: call.tool, arguments: call.args };
}

/** Qwen's native text form of one call. */
export function formatNativeToolCall(call: NativeToolCall): string {
  return `<tool_call>${JSON.stringify(call)}</tool_call>`;
}

function jsonToValue(value: unknown, where: string): ParamValue {
  if (typeof value === 'string') return { kind: 'string', value, span: NO_SPAN };
  if (typeof value === 'boolean') return { kind: 'boolean', value, span: NO_SPAN };
  if (typeof value === 'number') {
    if (Number.isSafeInteger(value)) return { kind: 'integer', value: value || 0, span: NO_SPAN };
    if (Number.isFinite(value)) return { kind: 'float', value, span: NO_SPAN };
    throw new ToolCallEncodeError(`${where}: ${value} is not a finite number`);
  }
  if (Array.isArray(value)) {
    if (value.length === 0)
      throw new ToolCallEncodeError(`${where}: the language has no empty array`);
    return {
      kind: 'array',
      items: value.map((v, i) => jsonToValue(v, `${where}[${i}]`)),
      span: NO_SPAN,
    };
  }
  const what = value === null ? 'null' : typeof value === 'object' ? 'objects' : typeof value;
  throw new ToolCallEncodeError(`${where}: the language has no ${what}`);
}

/** One native call as an AST call; throws ToolCallEncodeError for what the language lacks. */
export function fromNativeCall(call: NativeToolCall, namespaces = DEFAULT_NAMESPACES): ToolInvoke {
  const name = typeof call?.name === 'string' ? call.name : '';
  const [first = '', second, extra] = name.split('/');
  const namespaced = second !== undefined;
  if (extra !== undefined || !IDENT.test(first) || (namespaced && !IDENT.test(second))) {
    throw new ToolCallEncodeError(`'${name}' is not a tool name of the language`);
  }
  if (namespaced && !namespaces.includes(first)) {
    throw new ToolCallEncodeError(`'${name}': unknown namespace '${first}'`);
  }
  const args = call.arguments ?? {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolCallEncodeError(`${name}: arguments must be an object`);
  }
  const params = Object.entries(args).map(([key, value]) => {
    if (!IDENT.test(key))
      throw new ToolCallEncodeError(`${name}: '${key}' is not an argument name of the language`);
    return { key, keySpan: NO_SPAN, value: jsonToValue(value, `${name}.${key}`), span: NO_SPAN };
  });
  return {
    kind: 'invoke',
    ...(namespaced ? { namespace: first } : {}),
    name: namespaced ? (second as string) : first,
    tool: name,
    params,
    span: NO_SPAN,
  };
}

/** Native calls of one turn as a program: one call, or a parallel group of several. */
export function fromNativeCalls(
  calls: readonly NativeToolCall[],
  namespaces = DEFAULT_NAMESPACES,
): ToolCallProgram {
  if (calls.length === 0) throw new ToolCallEncodeError('no calls');
  const invokes = calls.map((call) => fromNativeCall(call, namespaces));
  return invokes.length === 1
    ? (invokes[0] as ToolInvoke)
    : { kind: 'parallel', calls: invokes, span: NO_SPAN };
}

export interface ExtractedToolCalls {
  /** The reply with every delimited call removed, trimmed. */
  text: string;
  /** Programs in reply order; AST positions are relative to the whole reply. */
  programs: ToolCallProgram[];
}

/**
 * Positions in `text` for increasing offsets, each found by scanning on from the previous one:
 * a reply with thousands of calls costs one pass, not one pass per call.
 */
function positionsIn(text: string): (offset: number) => Position {
  let line = 1;
  let column = 1;
  let scanned = 0;
  return (offset) => {
    for (; scanned < offset; scanned++) {
      const c = text.charCodeAt(scanned);
      if (c === 10 || (c === 13 && text.charCodeAt(scanned + 1) !== 10)) {
        line++;
        column = 1;
      } else if (!(c >= 0xdc00 && c <= 0xdfff && isHighSurrogate(text.charCodeAt(scanned - 1)))) {
        // Columns count code points: the low half of a surrogate pair adds nothing.
        column++;
      }
    }
    return { line, column, offset };
  };
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** Shifts every position of a parsed piece that starts at `base` (a line start) in the reply. */
function shift<T>(node: T, base: Position): T {
  if (Array.isArray(node)) return node.map((n) => shift(n, base)) as T;
  if (typeof node !== 'object' || node === null) return node;
  const record = node as Record<string, unknown>;
  if (typeof record.line === 'number' && typeof record.offset === 'number') {
    return {
      ...record,
      line: record.line + base.line - 1,
      offset: record.offset + base.offset,
    } as T;
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, shift(v, base)])) as T;
}

function shiftError(error: ToolCallSyntaxError, base: Position): ToolCallSyntaxError {
  return new ToolCallSyntaxError(
    error.detail,
    error.line + base.line - 1,
    error.column,
    error.offset + base.offset,
    error.expected,
    error.found,
  );
}

const DELIMITED =
  /^```toolcall[ \t]*\r?\n([\s\S]*?)^```[ \t]*$|^(\[?@.*)$|<tool_call>([\s\S]*?)<\/tool_call>/gm;

/** Finds the delimited tool calls in a text reply (see the convention at the top). */
export function extractToolCalls(reply: string, options: ParseOptions = {}): ExtractedToolCalls {
  const programs: ToolCallProgram[] = [];
  let prose = '';
  let last = 0;
  const positionAt = positionsIn(reply);
  for (const match of reply.matchAll(DELIMITED)) {
    const [whole, fenced, line, native] = match;
    prose += reply.slice(last, match.index);
    last = match.index + whole.length;
    // Where the call's text starts: after the fence line, or after `<tool_call>`.
    const bodyOffset =
      fenced !== undefined
        ? match.index + whole.indexOf('\n') + 1
        : match.index + (native !== undefined ? '<tool_call>'.length : 0);
    const base = positionAt(bodyOffset);
    if (native !== undefined) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(native);
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new ToolCallSyntaxError(
          `invalid JSON in <tool_call>: ${detail}`,
          base.line,
          base.column,
          base.offset,
        );
      }
      try {
        programs.push(fromNativeCalls([parsed as NativeToolCall], options.namespaces));
      } catch (error) {
        const detail = error instanceof Error ? error.message : String(error);
        throw new ToolCallSyntaxError(detail, base.line, base.column, base.offset);
      }
      continue;
    }
    const body = (fenced ?? line ?? '').replace(/\r?\n$/, '');
    try {
      programs.push(shift(parseToolCall(body, options), base));
    } catch (error) {
      throw error instanceof ToolCallSyntaxError ? shiftError(error, base) : error;
    }
  }
  prose += reply.slice(last);
  return { text: prose.trim(), programs };
}
