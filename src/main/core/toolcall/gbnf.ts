/**
 * GBNF (llama.cpp grammar) for the compact language, restricted to an allow list of tools:
 * tool names are literal alternatives, argument keys come from each tool's JSON Schema
 * `properties` (in schema order, required ones mandatory), values are constrained by the
 * property's type where the language can express it. Lengths are bounded (string length, digit
 * counts, chain and group sizes, array items and depth) so every output the grammar admits is
 * short enough to finish within a token budget and to pass the parser's limits. Output is the
 * canonical compact text: no whitespace, double-quoted strings, `true`/`false`.
 *
 * Use with node-llama-cpp: `llama.createGrammar({ grammar: toolCallGbnf(tools) })`.
 */
import { ToolCallEncodeError } from './errors.js';
import { DEFAULT_NAMESPACES } from './parser.js';
import { formatString } from './print.js';

/** The subset of JSON Schema the grammar reads. */
export interface GrammarSchema {
  type?: string | string[];
  properties?: Record<string, GrammarSchema>;
  required?: string[];
  items?: GrammarSchema;
  enum?: unknown[];
  const?: unknown;
}

export interface GrammarTool {
  /** `ns/name` or `name`. */
  name: string;
  /** A JSON Schema (the registry's ToolDef.inputSchema fits); read defensively. */
  inputSchema?: GrammarSchema | Readonly<Record<string, unknown>>;
}

export interface GbnfOptions {
  /** Also admit a plain text answer (one that does not start with `@` or `[`). */
  allowText?: boolean;
  /** Namespaces the parser will accept; default DEFAULT_NAMESPACES. */
  namespaces?: readonly string[];
  /** Most calls in a chain (default 4) and in a parallel group (default 4). */
  maxChain?: number;
  maxParallel?: number;
  /** Most characters in a string literal (default 64). */
  maxString?: number;
  /** Most items in an array (default 8) and array nesting depth for untyped values (default 2). */
  maxArrayItems?: number;
  maxArrayDepth?: number;
  /** Admit `$prev`/`$ctx`/`$env`/`$self` references as values (default true). */
  references?: boolean;
}

const IDENT = /^[A-Za-z][A-Za-z0-9_-]*$/;

/** A GBNF double-quoted literal. */
export function gbnfLiteral(text: string): string {
  let out = '"';
  for (const ch of text) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** `x{min,max}` that also works when max is 0 or 1. */
function repeat(x: string, min: number, max: number): string {
  if (max <= 0) return '';
  if (min === 0 && max === 1) return `${x}?`;
  if (min === max) return `${x}{${min}}`;
  return `${x}{${min},${max}}`;
}

function types(schema: GrammarSchema): string[] {
  const type: unknown = schema.type;
  const list: unknown[] = Array.isArray(type) ? type : type === undefined ? [] : [type];
  return list.filter((t): t is string => typeof t === 'string');
}

/** A sub-schema, or undefined when the value is not an object (schemas come from manifests). */
function asSchema(value: unknown): GrammarSchema | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as GrammarSchema)
    : undefined;
}

class GrammarBuilder {
  private readonly rules = new Map<string, string>();
  private readonly o: Required<Omit<GbnfOptions, 'namespaces' | 'allowText'>>;

  constructor(options: GbnfOptions) {
    this.o = {
      maxChain: options.maxChain ?? 4,
      maxParallel: options.maxParallel ?? 4,
      maxString: options.maxString ?? 64,
      maxArrayItems: options.maxArrayItems ?? 8,
      maxArrayDepth: options.maxArrayDepth ?? 2,
      references: options.references ?? true,
    };
    const ref = this.o.references ? ' | ref' : '';
    this.rule('ident', `[A-Za-z] ${repeat('[A-Za-z0-9_-]', 0, 31)}`);
    this.rule('char', `[^"\\\\\\x00-\\x1f\\x7f] | "\\\\" ( ["\\\\/bfnrt'] | "u" [0-9a-fA-F]{4} )`);
    this.rule('string', `"\\"" ${repeat('char', 0, this.o.maxString)} "\\""`);
    // Digit limits keep every number a safe integer / finite float, as the parser requires.
    this.rule('int', '"-"? [0-9]{1,15}');
    this.rule('float', '"-"? [0-9]{1,15} "." [0-9]{1,15}');
    this.rule('hex', '"0x" [0-9a-fA-F]{1,13}');
    this.rule('bool', '"true" | "false"');
    this.rule('ref', '"$" ( "prev" | "ctx" | "env" | "self" ) "." ident');
    this.rule('scalar', `string | float | hex | int | bool${ref}`);
    // Untyped values: arrays nested at most maxArrayDepth deep.
    let inner = 'scalar';
    for (let depth = 1; depth <= this.o.maxArrayDepth; depth++) {
      const name = `value-${depth}`;
      this.rule(name, `scalar | ${this.array(inner)}`);
      inner = name;
    }
    this.rule('value', inner);
  }

  rule(name: string, body: string): string {
    this.rules.set(name, body);
    return name;
  }

  private array(item: string): string {
    return `"(" ${item} ${repeat(`("," ${item})`, 0, this.o.maxArrayItems - 1)} ")"`;
  }

  /** A value rule for a property schema (named `prefix`), falling back to untyped values. */
  valueFor(raw: unknown, prefix: string, depth = 0): string {
    const schema = asSchema(raw);
    if (!schema) return 'value';
    const ref = this.o.references ? ['ref'] : [];
    const literals = schema.const !== undefined ? [schema.const] : schema.enum;
    if (Array.isArray(literals)) {
      const alts = literals.flatMap((v) => {
        if (typeof v === 'string') return [gbnfLiteral(formatString(v))];
        if (typeof v === 'boolean') return [`"${v}"`];
        if (typeof v === 'number' && Number.isSafeInteger(v)) return [`"${v}"`];
        return [];
      });
      if (alts.length) return this.rule(prefix, [...alts, ...ref].join(' | '));
    }
    const alts = new Set<string>();
    for (const type of types(schema)) {
      if (type === 'string') alts.add('string');
      else if (type === 'integer') alts.add('int').add('hex');
      else if (type === 'number') alts.add('float').add('int');
      else if (type === 'boolean') alts.add('bool');
      else if (type === 'array' && depth < this.o.maxArrayDepth) {
        alts.add(this.array(this.valueFor(schema.items, `${prefix}-i`, depth + 1)));
      }
      // null and object have no literal in the language: only a reference can supply them.
    }
    if (alts.size === 0 && types(schema).length === 0) return 'value';
    for (const r of ref) alts.add(r);
    if (alts.size === 0) return 'value';
    return this.rule(prefix, [...alts].join(' | '));
  }

  /**
   * Arguments in schema order, required ones mandatory; first-i (the first present argument is
   * at index >= i) and rest-i (after one is present) put ';' only between present arguments.
   * A schema without properties admits no arguments: a generic key list could repeat a key,
   * which the parser refuses. Returns the rule sequence to put between the braces.
   */
  params(raw: unknown, prefix: string): string {
    const schema = asSchema(raw);
    const props = asSchema(schema?.properties) ?? {};
    const keys = Object.keys(props).filter((k) => IDENT.test(k));
    if (keys.length === 0) return '';
    const required = new Set(Array.isArray(schema?.required) ? schema.required : []);
    const kv = keys.map((key, i) =>
      this.rule(
        `${prefix}-p${i}`,
        `${gbnfLiteral(`${key}=`)} ${this.valueFor((props as Record<string, unknown>)[key], `${prefix}-v${i}`)}`,
      ),
    );
    const n = keys.length;
    const opt = (i: number) => !required.has(keys[i] as string);
    const rest = (i: number) => (i < n ? ` ${prefix}-rest${i}` : '');
    for (let i = n - 1; i >= 1; i--) {
      this.rule(
        `${prefix}-rest${i}`,
        opt(i) ? `(";" ${kv[i]})?${rest(i + 1)}` : `";" ${kv[i]}${rest(i + 1)}`,
      );
    }
    // first-i is never empty; the call site makes it optional when every argument is.
    for (let i = n - 1; i >= 0; i--) {
      const here = `${kv[i]}${rest(i + 1)}`;
      this.rule(
        `${prefix}-first${i}`,
        opt(i) && i + 1 < n ? `${here} | ${prefix}-first${i + 1}` : here,
      );
    }
    return keys.every((_, i) => opt(i)) ? `${prefix}-first0?` : `${prefix}-first0`;
  }

  /** Rules reachable from root, root first (llama.cpp needs no unused rules). */
  text(): string {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name) || !this.rules.has(name)) return;
      seen.add(name);
      const body = (this.rules.get(name) ?? '').replace(
        /"(?:[^"\\]|\\.)*"|\[(?:[^\]\\]|\\.)*\]/g,
        ' ',
      );
      for (const ref of body.match(/[A-Za-z][A-Za-z0-9-]*/g) ?? []) visit(ref);
    };
    visit('root');
    return `${[...seen].map((name) => `${name} ::= ${this.rules.get(name)}`).join('\n')}\n`;
  }

  get options() {
    return this.o;
  }
}
/** The GBNF grammar admitting only calls of `tools` (and, optionally, a plain text answer). */
export function toolCallGbnf(tools: readonly GrammarTool[], options: GbnfOptions = {}): string {
  if (tools.length === 0)
    throw new ToolCallEncodeError('a tool-call grammar needs at least one tool');
  const namespaces = options.namespaces ?? DEFAULT_NAMESPACES;
  const b = new GrammarBuilder(options);
  const invokes = tools.map((tool, i) => {
    const [first = '', second, extra] = tool.name.split('/');
    const valid =
      extra === undefined &&
      IDENT.test(first) &&
      (second === undefined || (IDENT.test(second) && namespaces.includes(first)));
    if (!valid) throw new ToolCallEncodeError(`'${tool.name}' is not a tool name of the language`);
    const params = b.params(tool.inputSchema, `t${i}`);
    return b.rule(`tool-${i}`, `${gbnfLiteral(`@${tool.name}{`)} ${params}${params ? ' ' : ''}"}"`);
  });
  const o = b.options;
  b.rule('invoke', invokes.join(' | '));
  b.rule('chain', `invoke ${repeat('("->" invoke)', 0, o.maxChain - 1)}`.trim());
  b.rule('parallel', `"[" invoke ${repeat('("," invoke)', 0, o.maxParallel - 1)} "]"`);
  b.rule('call', o.maxParallel > 0 ? 'chain | parallel' : 'chain');
  if (options.allowText) {
    b.rule('answer', '[^@[\\x00] [^\\x00]*');
    b.rule('root', 'call | answer');
  } else {
    b.rule('root', 'call');
  }
  return b.text();
}
