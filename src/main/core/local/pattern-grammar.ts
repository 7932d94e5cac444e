/**
 * A JSON Schema `pattern` as GBNF for the inside of a JSON string, for the regular subset a
 * grammar can spell: literals, escapes (\d \w \s \. ...), classes, `.`, groups with `|`, and
 * the quantifiers ? * + {n} {n,} {n,m}, anchored or not. Everything it writes fully matches the
 * pattern, so it also matches it as the unanchored search JSON Schema means. Anything else
 * (look-arounds, back-references, \b, anchors inside) gives undefined: the reply is then
 * validated after generation instead.
 */
import { PincerError } from '../errors.js';
import { gbnfLiteral } from './number-grammar.js';

/** Code points a JSON string may hold unescaped and that are whole UTF-8 scalar values. */
const FORBIDDEN: [number, number][] = [
  [0x00, 0x1f],
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x7f, 0x7f],
  [0xd800, 0xdfff],
  [0x110000, 0x7fffffff],
];

/** One character of a JSON string: a valid scalar value, or an escape of one (no lone surrogate). */
export const JSON_STRING_CHAR =
  `[^${FORBIDDEN.map(classRange).join('')}] | "\\\\" ["\\\\/bfnrt] | ` +
  '"\\\\u" ([0-9a-cA-Ce-fE-F] [0-9a-fA-F]{3} | [dD] [0-7] [0-9a-fA-F]{2})';

function hex(code: number): string {
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0').toUpperCase()}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0').toUpperCase()}`;
  return `\\U${code.toString(16).padStart(8, '0').toUpperCase()}`;
}

function classRange([from, to]: [number, number]): string {
  return from === to ? hex(from) : `${hex(from)}-${hex(to)}`;
}

/** A pattern (or part of one) the grammar cannot express: checked after generation instead. */
class Unsupported extends PincerError {
  constructor(what: string) {
    super('invalid_request', what);
  }
}

type Ranges = [number, number][];

const DIGIT: Ranges = [[0x30, 0x39]];
const WORD: Ranges = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x5f, 0x5f],
  [0x61, 0x7a],
];
// Only the space: tabs and newlines would need escapes inside JSON, and a subset stays sound.
const SPACE: Ranges = [[0x20, 0x20]];

/** Ranges minus the code points a JSON string cannot hold raw. */
function allowed(ranges: Ranges): Ranges {
  let out = ranges;
  for (const [fa, fb] of FORBIDDEN) {
    out = out.flatMap(([a, b]): Ranges => {
      if (b < fa || a > fb) return [[a, b]];
      const parts: Ranges = [];
      if (a < fa) parts.push([a, fa - 1]);
      if (b > fb) parts.push([fb + 1, b]);
      return parts;
    });
  }
  return out;
}

function positiveClass(ranges: Ranges): string {
  const kept = allowed(ranges);
  if (kept.length === 0) throw new Unsupported('a class with no JSON-safe character');
  return `[${kept.map(classRange).join('')}]`;
}

function negatedClass(ranges: Ranges): string {
  return `[^${[...FORBIDDEN, ...ranges].map(classRange).join('')}]`;
}

/** GBNF for the string's characters (without the quotes), or undefined if out of the subset. */
export function patternGrammar(pattern: string): string | undefined {
  try {
    let source = pattern;
    if (source.startsWith('^')) source = source.slice(1);
    if (source.endsWith('$') && !source.endsWith('\\$')) source = source.slice(0, -1);
    const parser = new Parser(source);
    const out = parser.alternation();
    if (!parser.done()) throw new Unsupported('unbalanced');
    return out;
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

class Parser {
  private at = 0;
  constructor(private readonly src: string) {}

  done(): boolean {
    return this.at >= this.src.length;
  }

  private peek(): string | undefined {
    return this.src[this.at];
  }

  alternation(): string {
    const branches = [this.sequence()];
    while (this.peek() === '|') {
      this.at++;
      branches.push(this.sequence());
    }
    return branches.length === 1 ? String(branches[0]) : `(${branches.join(' | ')})`;
  }

  private sequence(): string {
    const items: string[] = [];
    while (!this.done() && this.peek() !== '|' && this.peek() !== ')') {
      const atom = this.atom();
      items.push(this.quantified(atom));
    }
    return items.length ? items.join(' ') : '""';
  }

  private quantified(atom: string): string {
    const c = this.peek();
    let suffix = '';
    if (c === '?' || c === '*' || c === '+') {
      this.at++;
      suffix = c;
    } else if (c === '{') {
      const m = /^\{(\d+)(,(\d*))?\}/.exec(this.src.slice(this.at));
      if (!m) throw new Unsupported('brace');
      this.at += m[0].length;
      const min = Number(m[1]);
      const max = m[2] === undefined ? min : m[3] === '' ? undefined : Number(m[3]);
      if (min > 256 || (max !== undefined && max > 256)) throw new Unsupported('long repeat');
      suffix = max === undefined ? `{${min},}` : max === min ? `{${min}}` : `{${min},${max}}`;
    }
    // A lazy quantifier matches the same strings.
    if (suffix && this.peek() === '?') this.at++;
    return suffix ? `(${atom})${suffix}` : atom;
  }

  private atom(): string {
    const c = this.src[this.at++];
    switch (c) {
      case '(': {
        if (this.peek() === '?') {
          if (this.src[this.at + 1] !== ':') throw new Unsupported('group kind');
          this.at += 2;
        }
        const inner = this.alternation();
        if (this.src[this.at++] !== ')') throw new Unsupported('unclosed group');
        return `(${inner})`;
      }
      case '[':
        return this.charClass();
      case '.':
        return negatedClass([
          [0x0a, 0x0a],
          [0x0d, 0x0d],
          [0x2028, 0x2029],
        ]);
      case '\\':
        return this.escape();
      case '^':
      case '$':
      case ')':
      case '*':
      case '+':
      case '?':
      case '{':
        throw new Unsupported(`'${c}' here`);
      default: {
        const code = this.src.codePointAt(this.at - 1) as number;
        if (code > 0xffff) this.at++;
        return literal(String.fromCodePoint(code));
      }
    }
  }

  private escape(): string {
    const c = this.src[this.at++];
    const set = classEscape(c);
    if (set) return positiveClass(set);
    if (c === 'D' || c === 'W' || c === 'S')
      return negatedClass(classEscape(c.toLowerCase()) ?? []);
    if (c === undefined || /[0-9bBkpPuxcfnrtv]/.test(c)) throw new Unsupported(`\\${c}`);
    return literal(c);
  }

  private charClass(): string {
    let negated = false;
    if (this.peek() === '^') {
      negated = true;
      this.at++;
    }
    const ranges: Ranges = [];
    let first = true;
    while (this.peek() !== ']' || first) {
      first = false;
      const c = this.src[this.at++];
      if (c === undefined) throw new Unsupported('unclosed class');
      let code: number;
      if (c === '\\') {
        const e = this.src[this.at++];
        const set = classEscape(e);
        if (set) {
          ranges.push(...set);
          continue;
        }
        if (e === undefined || /[0-9bBkpPuxcfnrtvDWS]/.test(e)) throw new Unsupported(`\\${e}`);
        code = e.codePointAt(0) as number;
      } else {
        code = c.codePointAt(0) as number;
        if (code > 0xffff) this.at++;
      }
      if (this.peek() === '-' && this.src[this.at + 1] !== ']') {
        this.at++;
        let end = this.src[this.at++];
        if (end === '\\') end = this.src[this.at++];
        if (end === undefined) throw new Unsupported('range');
        const to = end.codePointAt(0) as number;
        if (to > 0xffff) this.at++;
        ranges.push([code, to]);
      } else ranges.push([code, code]);
    }
    this.at++;
    return negated ? negatedClass(ranges) : positiveClass(ranges);
  }
}

function classEscape(c: string | undefined): Ranges | undefined {
  if (c === 'd') return DIGIT;
  if (c === 'w') return WORD;
  if (c === 's') return SPACE;
  return undefined;
}

/** A pattern character as it is written inside a JSON string. */
function literal(c: string): string {
  if (c === '"' || c === '\\') return gbnfLiteral(`\\${c}`);
  const code = c.codePointAt(0) as number;
  if (code < 0x20 || code === 0x7f) throw new Unsupported('control character');
  return gbnfLiteral(c);
}
