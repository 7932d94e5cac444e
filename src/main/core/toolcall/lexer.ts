/**
 * Lexer of the tool-call language. Tokens are pulled one at a time by the parser, so the first
 * problem in source order is the one reported. Whitespace (space, tab, CR, LF) may separate
 * tokens but never split one: `@fs/read`, `$prev.x`, `->` and numbers are single tokens.
 */
import type { Position, ReferenceScope } from './ast.js';
import { ToolCallSyntaxError } from './errors.js';

export type TokenKind =
  | 'tool'
  | 'ident'
  | 'string'
  | 'integer'
  | 'float'
  | 'hex'
  | 'reference'
  | '{'
  | '}'
  | '('
  | ')'
  | '['
  | ']'
  | ','
  | ';'
  | '='
  | '->'
  | 'eof';

export interface Token {
  kind: TokenKind;
  /** The source text of the token (empty at end of input). */
  text: string;
  start: Position;
  end: Position;
  /** Decoded string, identifier, or tool / reference name. */
  value: string;
  /** `tool`: the namespace when written `@ns/name`; `reference`: the scope. */
  prefix: string | undefined;
  /** Position of the part after the prefix (tool name or reference name). */
  nameStart: Position | undefined;
  /** Numbers: the numeric value. */
  number: number | undefined;
}

const SCOPES: readonly ReferenceScope[] = ['prev', 'ctx', 'env', 'self'];
const PUNCT = new Set(['{', '}', '(', ')', '[', ']', ',', ';', '=']);
const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  "'": "'",
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

const isHigh = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isAlpha = (c: string) => (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
const isDigit = (c: string) => c >= '0' && c <= '9';
const isHexDigit = (c: string) => isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
const isIdentChar = (c: string) => isAlpha(c) || isDigit(c) || c === '_' || c === '-';

/** How a piece of source is shown in an error: quoted and cut short, or `end of input`. */
export function describeFound(text: string): string {
  if (text === '') return 'end of input';
  const shown = text.length > 24 ? `${text.slice(0, 24)}…` : text;
  return `'${JSON.stringify(shown).slice(1, -1)}'`;
}

export class Lexer {
  private offset = 0;
  private line = 1;
  private column = 1;

  constructor(private readonly src: string) {}

  position(): Position {
    return { line: this.line, column: this.column, offset: this.offset };
  }

  /** Reads the next token, skipping whitespace. */
  next(): Token {
    this.skipWhitespace();
    const start = this.position();
    const c = this.src[this.offset];
    if (c === undefined) return this.token('eof', start, '');
    if (PUNCT.has(c)) {
      this.advance();
      return this.token(c as TokenKind, start, c);
    }
    if (c === '-' && this.src[this.offset + 1] === '>') {
      this.advance(2);
      return this.token('->', start, '->');
    }
    if (c === '-' || isDigit(c)) return this.number(start);
    if (c === '"' || c === "'") return this.string(start, c);
    if (c === '@') return this.tool(start);
    if (c === '$') return this.reference(start);
    if (isAlpha(c)) {
      const name = this.identifier();
      return this.token('ident', start, name);
    }
    throw this.error(start, 'unexpected character', [], this.charAt(this.offset));
  }

  /** Every token has the same shape (all fields set), which keeps V8's property access fast. */
  private token(
    kind: TokenKind,
    start: Position,
    value: string,
    prefix?: string,
    nameStart?: Position,
    number?: number,
  ): Token {
    return {
      kind,
      text: this.src.slice(start.offset, this.offset),
      start,
      end: this.position(),
      value,
      prefix,
      nameStart,
      number,
    };
  }

  private error(
    at: Position,
    what: string,
    expected: string[],
    found: string,
  ): ToolCallSyntaxError {
    return new ToolCallSyntaxError(
      `${what} ${describeFound(found)}`,
      at.line,
      at.column,
      at.offset,
      expected,
      describeFound(found),
    );
  }

  /** The full code point at an offset, so an emoji is reported whole. */
  private charAt(offset: number): string {
    const cp = this.src.codePointAt(offset);
    return cp === undefined ? '' : String.fromCodePoint(cp);
  }

  /** Moves over `count` UTF-16 units that contain no newline; columns count code points. */
  private advance(count = 1): void {
    for (let i = 0; i < count; i++) {
      const code = this.src.charCodeAt(this.offset);
      this.offset++;
      // A low surrogate after a high one is the same column.
      const next = this.src.charCodeAt(this.offset);
      if (code >= 0xd800 && code <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        this.offset++;
        i++;
      }
      this.column++;
    }
  }

  private skipWhitespace(): void {
    for (;;) {
      const c = this.src[this.offset];
      if (c === ' ' || c === '\t') {
        this.offset++;
        this.column++;
      } else if (c === '\n' || c === '\r') {
        this.offset += c === '\r' && this.src[this.offset + 1] === '\n' ? 2 : 1;
        this.line++;
        this.column = 1;
      } else return;
    }
  }

  private identifier(): string {
    const from = this.offset;
    let i = from;
    for (; i < this.src.length; i++) {
      const c = this.src.charCodeAt(i) | 0x20; // ASCII lower-casing folds A-Z onto a-z
      const code = this.src.charCodeAt(i);
      if (
        !(
          (c >= 0x61 && c <= 0x7a) ||
          (code >= 0x30 && code <= 0x39) ||
          code === 0x5f ||
          code === 0x2d
        )
      )
        break;
    }
    this.column += i - from;
    this.offset = i;
    return this.src.slice(from, i);
  }

  /** `@name` or `@ns/name`; the namespace list is checked by the parser. */
  private tool(start: Position): Token {
    this.advance();
    const first = this.position();
    if (!isAlpha(this.src[this.offset] ?? '')) {
      throw this.error(
        first,
        "expected tool name after '@', found",
        ['tool name'],
        this.charAt(this.offset),
      );
    }
    const head = this.identifier();
    if (this.src[this.offset] !== '/') {
      return this.token('tool', start, head, undefined, first);
    }
    this.advance();
    const nameStart = this.position();
    if (!isAlpha(this.src[this.offset] ?? '')) {
      throw this.error(
        nameStart,
        "expected tool name after '/', found",
        ['identifier'],
        this.charAt(this.offset),
      );
    }
    const name = this.identifier();
    return this.token('tool', start, name, head, nameStart);
  }

  /** `$scope.name` with scope one of prev, ctx, env, self. */
  private reference(start: Position): Token {
    this.advance();
    const scopeAt = this.position();
    const scope = isAlpha(this.src[this.offset] ?? '') ? this.identifier() : '';
    if (!SCOPES.includes(scope as ReferenceScope)) {
      const found = scope || this.charAt(this.offset);
      throw this.error(
        scopeAt,
        "expected 'prev', 'ctx', 'env' or 'self' after '$', found",
        [...SCOPES],
        found,
      );
    }
    if (this.src[this.offset] !== '.') {
      throw this.error(
        this.position(),
        `expected '.' after '$${scope}', found`,
        ['.'],
        this.charAt(this.offset),
      );
    }
    this.advance();
    const nameStart = this.position();
    if (!isAlpha(this.src[this.offset] ?? '')) {
      throw this.error(
        nameStart,
        `expected a name after '$${scope}.', found`,
        ['identifier'],
        this.charAt(this.offset),
      );
    }
    const name = this.identifier();
    return this.token('reference', start, name, scope, nameStart);
  }

  /** `<integer>`, `<float>` or `<hex>`; a number must not run straight into a name. */
  private number(start: Position): Token {
    const src = this.src;
    if (src[this.offset] === '0' && src[this.offset + 1] === 'x') {
      this.advance(2);
      const from = this.offset;
      while (isHexDigit(src[this.offset] ?? '')) this.advance();
      if (this.offset === from) {
        throw this.error(
          this.position(),
          "expected hex digit after '0x', found",
          ['hex digit'],
          this.charAt(this.offset),
        );
      }
      const value = Number.parseInt(src.slice(from, this.offset), 16);
      this.checkEnd(start, value);
      return this.token('hex', start, '', undefined, undefined, value);
    }
    if (src[this.offset] === '-') this.advance();
    if (!isDigit(src[this.offset] ?? '')) {
      throw this.error(
        this.position(),
        "expected digit after '-', found",
        ['digit', '->'],
        this.charAt(this.offset),
      );
    }
    while (isDigit(src[this.offset] ?? '')) this.advance();
    let kind: TokenKind = 'integer';
    if (src[this.offset] === '.') {
      this.advance();
      if (!isDigit(src[this.offset] ?? '')) {
        throw this.error(
          this.position(),
          "expected digit after '.', found",
          ['digit'],
          this.charAt(this.offset),
        );
      }
      while (isDigit(src[this.offset] ?? '')) this.advance();
      kind = 'float';
    }
    const text = src.slice(start.offset, this.offset);
    let value = Number(text);
    if (kind === 'integer' && Object.is(value, -0)) value = 0;
    this.checkEnd(start, value, kind === 'integer');
    return this.token(kind, start, '', undefined, undefined, value);
  }

  private checkEnd(start: Position, value: number, integer = true): void {
    const c = this.src[this.offset] ?? '';
    if (isIdentChar(c) || c === '.' || c === '$' || c === '@') {
      throw this.error(
        this.position(),
        'unexpected character after number:',
        [],
        this.charAt(this.offset),
      );
    }
    const ok = integer ? Number.isSafeInteger(value) : Number.isFinite(value);
    if (!ok) {
      const text = this.src.slice(start.offset, this.offset);
      throw new ToolCallSyntaxError(
        `number out of range: ${describeFound(text)}`,
        start.line,
        start.column,
        start.offset,
        [],
        describeFound(text),
      );
    }
  }

  /** A quoted string with JSON's escapes plus `\'`; raw control characters are refused. */
  private string(start: Position, quote: string): Token {
    this.advance();
    const closing = quote.charCodeAt(0);
    let out = '';
    for (;;) {
      const c = this.src[this.offset];
      if (c === undefined) {
        throw this.error(
          this.position(),
          `unterminated string: expected closing ${quote}, found`,
          [quote],
          '',
        );
      }
      if (c === quote) {
        this.advance();
        return this.token('string', start, out);
      }
      if (c === '\\') {
        const escAt = this.position();
        this.advance();
        const e = this.src[this.offset] ?? '';
        if (e === 'u') {
          const hex = this.src.slice(this.offset + 1, this.offset + 5);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) {
            throw this.error(
              escAt,
              'invalid \\u escape: expected 4 hex digits, found',
              ['hex digit'],
              hex,
            );
          }
          out += String.fromCharCode(Number.parseInt(hex, 16));
          this.advance(5);
          continue;
        }
        const simple = SIMPLE_ESCAPES[e];
        if (simple === undefined) {
          throw this.error(
            escAt,
            'invalid escape',
            Object.keys(SIMPLE_ESCAPES)
              .concat('u')
              .map((k) => `\\${k}`),
            `\\${e}`,
          );
        }
        out += simple;
        this.advance();
        continue;
      }
      if (c < ' ' || c === '\u007f') {
        throw this.error(this.position(), 'control character in string (use an escape):', [], c);
      }
      // Fast path: take the run of plain characters up to the next quote, escape or control.
      const from = this.offset;
      let columns = 0;
      let i = from;
      for (; i < this.src.length; i++) {
        const code = this.src.charCodeAt(i);
        if (code === closing || code === 0x5c || code < 0x20 || code === 0x7f) break;
        // A low surrogate after a high one shares its column.
        if (code < 0xdc00 || code > 0xdfff || i === from || !isHigh(this.src.charCodeAt(i - 1)))
          columns++;
      }
      out += this.src.slice(from, i);
      this.offset = i;
      this.column += columns;
    }
  }
}
