/**
 * The text as a reader would decode it, for finding a known value however it was spelled:
 * whitespace and line breaks (a value spaced out or split across lines), zero-width, bidi and
 * control characters and ANSI escape sequences between its characters are dropped; percent
 * escapes, `\uXXXX` / `\xHH` / JSON backslash escapes and HTML character references are
 * decoded. Each character of the view remembers where it came from, so a hit is cut out of the
 * original. Text with nothing to decode (most text) is searched as it is (`needsDecoding`).
 */

/** Characters that draw nothing: controls, zero-width, soft hyphen, bidi marks, BOM. */
function invisible(code: number): boolean {
  return (
    code < 0x20 ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0xad ||
    code === 0x180e ||
    (code >= 0x200b && code <= 0x200f) ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2060 && code <= 0x2064) ||
    (code >= 0x2066 && code <= 0x2069) ||
    code === 0xfeff
  );
}

function blank(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 0xa0;
}

const NEEDS_DECODING =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: controls are dropped from the view
  /[%\\&\x00-\x08\x0e-\x1f\x7f-\xa0\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/;

/**
 * Whether the view differs from the text by more than whitespace: when it does not, a search
 * that allows whitespace between characters finds in the text itself what the view would hold.
 */
export function needsDecoding(text: string): boolean {
  return NEEDS_DECODING.test(text);
}

// CSI (colours, cursor moves) and two-character escapes. An OSC's payload stays in the view:
// dropping it would let `ESC ] ... BEL` hide a value from the search.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching ANSI escapes is the point
const ANSI = /\x1b(?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])/y;
const ESCAPED_ANSI = /\\u001[bB](?:\[[0-?]*[ -/]*[@-~]|[@-Z\\-_])/y;
const ENTITY = /&(?:#(\d{1,7})|#[xX]([0-9a-fA-F]{1,6})|(amp|lt|gt|quot|apos|nbsp));?/y;
const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
};

function hexAt(text: string, at: number, length: number): number | undefined {
  const digits = text.slice(at, at + length);
  return digits.length === length && /^[0-9a-fA-F]+$/.test(digits)
    ? Number.parseInt(digits, 16)
    : undefined;
}

function sticky(pattern: RegExp, text: string, at: number): string | undefined {
  pattern.lastIndex = at;
  return pattern.exec(text)?.[0];
}

/** The escapes `decodedView` decodes, in the order it tries them at one place. */
const DECODED = new RegExp(
  [
    ANSI.source,
    ESCAPED_ANSI.source,
    '%[0-7][0-9a-fA-F]',
    '\\\\(?:[uU][0-9a-fA-F]{4}|x[0-9a-fA-F]{2}|[nrt\\\\"\'/])',
    // The same references as ENTITY, without its groups (a replace callback pays for each).
    '&(?:#\\d{1,7}|#[xX][0-9a-fA-F]{1,6}|amp|lt|gt|quot|apos|nbsp);?',
    '[\\x00-\\x08\\x0e-\\x1f\\x7f-\\x9f\\u00a0\\u00ad\\u180e\\u200b-\\u200f\\u202a-\\u202e\\u2060-\\u2064\\u2066-\\u2069\\ufeff]',
  ].join('|'),
  'g',
);

/**
 * The view's characters with whitespace kept (a search allowing whitespace between characters
 * finds the same values in it), built by one native scan: what a search needs when it finds
 * nothing, the usual case; `decodedView` adds the positions when it does.
 */
export function viewText(text: string): string {
  if (!NEEDS_DECODING.test(text)) return text;
  return text.replace(DECODED, decodeOne);
}

/** One match of DECODED as the view holds it (what draws nothing, as nothing). */
function decodeOne(match: string): string {
  let char = '';
  const first = match[0];
  if (first === '%') char = String.fromCharCode(Number.parseInt(match.slice(1), 16));
  else if (first === '\\') {
    const kind = match[1];
    if (kind === 'u' || kind === 'U' || kind === 'x') {
      // \u001b starts an escaped ANSI sequence: the whole sequence draws nothing.
      if (match.length === 6 || match.length === 4)
        char = String.fromCharCode(Number.parseInt(match.slice(2), 16));
    } else if (kind !== 'n' && kind !== 'r' && kind !== 't') char = kind as string;
  } else if (first === '&') {
    ENTITY.lastIndex = 0;
    const [, decimal, hex, name] = ENTITY.exec(match) ?? [];
    const point = decimal
      ? Number(decimal)
      : hex
        ? Number.parseInt(hex, 16)
        : (NAMED[name as string] as string).charCodeAt(0);
    if (point > 0x10ffff) return match;
    char = String.fromCodePoint(point);
  }
  const code = char.charCodeAt(0);
  return char && !blank(code) && !invisible(code) ? char : '';
}

export interface DecodedView {
  text: string;
  /** Per view character: where its spelling starts and ends in the original. */
  starts: number[];
  ends: number[];
}

export function decodedView(text: string): DecodedView {
  const out: string[] = [];
  const starts: number[] = [];
  const ends: number[] = [];
  const push = (char: string, start: number, end: number) => {
    const code = char.charCodeAt(0);
    if (blank(code) || invisible(code)) return;
    out.push(char);
    starts.push(start);
    ends.push(end);
  };
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    let decoded: [string, number] | undefined;
    if (code === 0x1b) {
      const seq = sticky(ANSI, text, i);
      if (seq) decoded = ['', seq.length];
    } else if (code === 0x25 /* % */) {
      const byte = hexAt(text, i + 1, 2);
      if (byte !== undefined && byte < 0x80) decoded = [String.fromCharCode(byte), 3];
    } else if (code === 0x5c /* \ */) {
      const next = text[i + 1];
      const seq = sticky(ESCAPED_ANSI, text, i);
      if (seq) decoded = ['', seq.length];
      else if (next === 'u' || next === 'U') {
        const unit = hexAt(text, i + 2, 4);
        if (unit !== undefined) decoded = [String.fromCharCode(unit), 6];
      } else if (next === 'x') {
        const byte = hexAt(text, i + 2, 2);
        if (byte !== undefined) decoded = [String.fromCharCode(byte), 4];
      } else if (next === 'n' || next === 'r' || next === 't') {
        // An escaped line break inside a JSON string: the value split across lines.
        decoded = ['', 2];
      } else if (next === '\\' || next === '"' || next === '/' || next === "'") {
        decoded = [next, 2];
      }
    } else if (code === 0x26 /* & */) {
      ENTITY.lastIndex = i;
      const match = ENTITY.exec(text);
      if (match) {
        const [whole, decimal, hex, name] = match;
        const point = decimal
          ? Number(decimal)
          : hex
            ? Number.parseInt(hex, 16)
            : (NAMED[name as string] as string).charCodeAt(0);
        if (point <= 0x10ffff) decoded = [String.fromCodePoint(point), whole.length];
      }
    }
    if (decoded) {
      if (decoded[0]) push(decoded[0], i, i + decoded[1]);
      i += decoded[1];
    } else {
      push(text[i] as string, i, i + 1);
      i++;
    }
  }
  return { text: out.join(''), starts, ends };
}

/**
 * Where an escape that the next piece of a stream could complete begins (`%4`, `\u00`, `&#x6`,
 * an ESC and its unfinished sequence), or undefined: a stream holds such a tail back.
 */
const OPEN_ESCAPE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: an unfinished ANSI escape is held too
  /(?:%[0-9a-fA-F]?|\\(?:[uU][0-9a-fA-F]{0,3}|x[0-9a-fA-F]?|u001[bB](?:\[[0-?]*[ -/]*)?)?|&#?[xX]?[0-9a-zA-Z]{0,7}|\x1b(?:\[[0-?]*[ -/]*)?)$/;

export function openEscapeAt(text: string): number | undefined {
  const match = OPEN_ESCAPE.exec(text);
  return match ? match.index : undefined;
}
