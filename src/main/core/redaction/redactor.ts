/**
 * The agent's one redactor: every text that leaves the agent (the model stream and replies,
 * tool output before the model reads it, stored messages, events, audit rows, telemetry, error
 * messages) passes through it. It knows the stored secrets' values (the secrets store registers
 * each one it reads or writes) and the credential patterns, and finds a known value in its
 * common encodings: plain, reversed, base64 and base64url at any alignment, hex, percent, JSON
 * and `\u` escapes, HTML references, spaced out, split across lines, with ANSI codes or
 * invisible characters between its characters. The composition root makes one per agent.
 */
import {
  type DecodedView,
  decodedView,
  needsDecoding,
  openEscapeAt,
  viewText,
} from './decoded-view.js';
import { redactPatterns } from './patterns.js';
import { MIN_SPELLING_LENGTH, spellingsOf } from './spellings.js';

/** Shorter values would redact ordinary words; such secrets are refused by design. */
export const MIN_REDACT_LENGTH = 4;

/** What a redaction replaced: `known-secret` for a stored value, else the pattern's id. */
export interface Redacted {
  text: string;
  found: string[];
}

/** A stream of text (a model's deltas) redacted as it arrives; see `Redactor.stream`. */
export interface RedactingStream {
  /** The part of everything pushed so far that no later piece can turn into a secret. */
  push(piece: string): string;
  /** The rest, at the end of the stream. */
  end(): string;
}

interface Hit {
  start: number;
  end: number;
  name?: string;
}

interface Index {
  /** Each spelling's name, by the spelling. */
  names: Map<string, string | undefined>;
  /** Every spelling, longest first, with whitespace allowed between its characters. */
  spaced: RegExp;
  /** A tail of a text that could still grow into a spelling (or a short value). */
  starts: RegExp;
}

const GAP = '[\\t\\n\\v\\f\\r ]*';
const WHITESPACE = /[\t\n\v\f\r ]+/g;
const literal = (char: string) => char.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');

const spacedPattern = (spelling: string) => [...spelling].map(literal).join(GAP);

/** Any non-empty start of the spelling: `a(?:GAP b(?:GAP c)?)?`. */
function startPattern(spelling: string): string {
  const chars = [...spelling].map(literal);
  let out = chars.at(-1) as string;
  for (let i = chars.length - 2; i >= 0; i--) out = `${chars[i]}(?:${GAP}${out})?`;
  return out;
}

const marker = (name: string | undefined) => (name ? `[REDACTED:${name}]` : '[REDACTED]');

export class Redactor {
  private readonly known = new Map<string, { name?: string; spellings: string[] }>();
  /** Values too short for the encoded search: replaced where they appear verbatim. */
  private readonly short = new Map<string, string | undefined>();
  private index: Index | null = null;

  constructor(values: Iterable<string> = []) {
    for (const value of values) this.register(value);
  }

  /** A value to redact from now on, with its name when known (`[REDACTED:NAME]`). */
  register(value: string, name?: string): void {
    if (value.length < MIN_REDACT_LENGTH) return;
    if (this.has(value) && (this.known.get(value)?.name ?? this.short.get(value) ?? !name)) return;
    const spellings = value.length < MIN_SPELLING_LENGTH ? [] : spellingsOf(value);
    if (spellings.length === 0) this.short.set(value, name);
    else this.known.set(value, { name, spellings });
    this.index = null;
  }

  unregister(value: string): void {
    this.known.delete(value);
    this.short.delete(value);
    this.index = null;
  }

  has(value: string): boolean {
    return this.known.has(value) || this.short.has(value);
  }

  /** The registered values themselves (a typed call refuses to carry one). */
  values(): string[] {
    return [...this.known.keys(), ...this.short.keys()];
  }

  /** Known values first (in any spelling), then the credential patterns. */
  redact(text: string): Redacted {
    const known = this.redactKnown(text);
    const patterns = redactPatterns(known);
    return {
      text: patterns.text,
      found: known === text ? patterns.found : ['known-secret', ...patterns.found],
    };
  }

  /** Deep-redacts every string in a JSON-like value (events, audit rows, spans). */
  redactValue<T>(value: T): T {
    if (typeof value === 'string') return this.redact(value).text as T;
    if (Array.isArray(value)) return value.map((v) => this.redactValue(v)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(
        Object.entries(value).map(([k, v]) => [k, this.redactValue(v)]),
      ) as T;
    }
    return value;
  }

  /** A message for people (an error) with every known value and pattern removed. */
  redactError(error: unknown): string {
    return this.redact(error instanceof Error ? error.message : String(error)).text;
  }

  /**
   * Redacts text that arrives in pieces: each push returns what is safe to show, holding back
   * the longest tail that could still be the start of a known value in one of its spellings
   * (or an escape the next piece completes), so a secret sent a few characters at a time never
   * shows. `end` releases the rest.
   */
  stream(): RedactingStream {
    let pending = '';
    return {
      push: (piece) => {
        pending += piece;
        const cut = this.safeEnd(pending);
        const out = pending.slice(0, cut);
        pending = pending.slice(cut);
        return out ? this.redact(out).text : '';
      },
      end: () => {
        const out = pending;
        pending = '';
        return out ? this.redact(out).text : '';
      },
    };
  }

  private compiled(): Index {
    if (this.index) return this.index;
    const names = new Map<string, string | undefined>();
    // Longest values first: where two overlap at one place, the longer is cut whole.
    const entries = [...this.known.entries()].sort((a, b) => b[0].length - a[0].length);
    for (const [, known] of entries)
      for (const spelling of known.spellings)
        if (!names.has(spelling)) names.set(spelling, known.name);
    const spellings = [...names.keys()];
    const starts = [...spellings, ...this.short.keys()].map(startPattern);
    this.index = {
      names,
      spaced: new RegExp(spellings.map(spacedPattern).join('|') || '(?!)', 'g'),
      starts: new RegExp(`(?:${starts.join('|') || '(?!)'})${GAP}$`),
    };
    return this.index;
  }

  /**
   * Every hit of a spelling, as a range of the original. Text with nothing to decode is
   * searched as it is (whitespace allowed between characters); other text through its
   * decoded view, whose characters say where they came from.
   */
  private hits(text: string, given?: DecodedView): Hit[] {
    const { spaced, names } = this.compiled();
    spaced.lastIndex = 0;
    if (!given && !spaced.test(viewText(text))) return [];
    const decoded = given ?? (needsDecoding(text) ? decodedView(text) : undefined);
    const searched = decoded ? decoded.text : text;
    // matchAll starts where the test left the expression.
    spaced.lastIndex = 0;
    const hits: Hit[] = [];
    for (const match of searched.matchAll(spaced)) {
      const end = match.index + match[0].length;
      hits.push({
        start: decoded ? (decoded.starts[match.index] as number) : match.index,
        end: decoded ? (decoded.ends[end - 1] as number) : end,
        name: names.get(decoded ? match[0] : match[0].replace(WHITESPACE, '')),
      });
    }
    return hits;
  }

  private redactKnown(text: string): string {
    let out = text;
    if (this.known.size) {
      let cut = '';
      let from = 0;
      for (const hit of this.hits(out)) {
        cut += out.slice(from, hit.start) + marker(hit.name);
        from = hit.end;
      }
      if (from) out = cut + out.slice(from);
    }
    // Short values: verbatim only (an encoded search would find them in prose), after the long
    // ones so a short value inside a long one does not break it up.
    if (this.short.size) {
      for (const [value, name] of [...this.short].sort((a, b) => b[0].length - a[0].length))
        if (out.includes(value)) out = out.split(value).join(marker(name));
    }
    return out;
  }

  /**
   * Where a stream may cut `text`: before an unfinished escape, before the longest tail (after
   * the last whole hit) that is the start of a known spelling, and never inside a hit.
   */
  private safeEnd(text: string): number {
    let cut = openEscapeAt(text) ?? text.length;
    if (this.known.size === 0 && this.short.size === 0) return cut;
    const head = text.slice(0, cut);
    const decoded = needsDecoding(head) ? decodedView(head) : undefined;
    const hits = this.known.size ? this.hits(head, decoded) : [];
    const searched = decoded ? decoded.text : head;
    // Where the last hit ends, in the searched text.
    let after = 0;
    for (const hit of hits) {
      if (!decoded) after = Math.max(after, hit.end);
      else while (after < searched.length && (decoded.starts[after] as number) < hit.end) after++;
    }
    const start = this.compiled().starts.exec(searched.slice(after));
    if (start) {
      const at = after + start.index;
      cut = Math.min(cut, decoded ? (decoded.starts[at] as number) : at);
    }
    // A cut inside a hit would show its first part: hold the whole hit instead.
    for (const hit of hits.reverse()) if (hit.start < cut && cut < hit.end) cut = hit.start;
    return cut;
  }
}
