/**
 * Numbers as GBNF that can only spell values inside a range: no exponent (node-llama-cpp's
 * own number rule allows `8E4668883820750250`, which parses to Infinity), a bounded count of
 * digits, and ranges written as digit-by-digit alternatives (1..7 is `[1-7]`, 10..250 is
 * `"1" [0-9] [0-9] | "2" [0-4] [0-9] | "250"` and so on). Every value the grammar admits is in
 * the range; values too fine for the chosen decimals may be left out, never wrong ones let in.
 */

/** Integer digits at most: 15 keeps every integer exactly representable as a double. */
export const MAX_INT_DIGITS = 15;
/** Fraction digits a number may carry beyond its range's own precision. */
export const MAX_FRACTION_DIGITS = 6;
const LIMIT = 10 ** MAX_INT_DIGITS - 1;

export interface NumberRange {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** A GBNF string literal. */
export function gbnfLiteral(text: string): string {
  return `"${text
    .replace(/[\\"]/g, (c) => `\\${c}`)
    .replace(/\n/g, '\\n')
    .replace(/\r/g, '\\r')
    .replace(/\t/g, '\\t')}"`;
}

const alt = (parts: string[]) => (parts.length === 1 ? String(parts[0]) : `(${parts.join(' | ')})`);

function digitClass(from: number, to: number): string {
  if (from === to) return `"${from}"`;
  return from === 0 && to === 9 ? '[0-9]' : `[${from}-${to}]`;
}

/** Digit strings of one length between `a` and `b` (both that long, a <= b), leading zeros allowed. */
function sameLength(a: string, b: string): string[] {
  if (a.length === 0) return [''];
  if (a === b) return [`"${a}"`];
  const n = a.length - 1;
  const [ha, hb] = [Number(a[0]), Number(b[0])];
  const restA = a.slice(1);
  const restB = b.slice(1);
  const any = n === 0 ? '' : n === 1 ? ' [0-9]' : ` [0-9]{${n}}`;
  if (ha === hb) return sameLength(restA, restB).map((tail) => join(`"${ha}"`, tail));
  const out: string[] = [];
  const lowFull = /^0*$/.test(restA);
  const highFull = /^9*$/.test(restB);
  const midFrom = lowFull ? ha : ha + 1;
  const midTo = highFull ? hb : hb - 1;
  if (!lowFull) out.push(...sameLength(restA, '9'.repeat(n)).map((t) => join(`"${ha}"`, t)));
  if (midFrom <= midTo) out.push(`${digitClass(midFrom, midTo)}${any}`);
  if (!highFull) out.push(...sameLength('0'.repeat(n), restB).map((t) => join(`"${hb}"`, t)));
  return out;
}

const join = (head: string, tail: string) => (tail ? `${head} ${alt([tail])}` : head);

/** Non-negative integers from `low` to `high`, written without leading zeros. */
export function naturalRange(low: number, high: number): string | undefined {
  if (low > high || low < 0) return undefined;
  const parts: string[] = [];
  for (let length = String(low).length; length <= String(high).length; length++) {
    const from = Math.max(low, length === 1 ? 0 : 10 ** (length - 1));
    const to = Math.min(high, 10 ** length - 1);
    if (from <= to) parts.push(...sameLength(String(from), String(to)));
  }
  return alt(parts);
}

/** Integers from `low` to `high` (either sign). */
export function integerRange(low: number, high: number): string | undefined {
  const parts: string[] = [];
  if (low < 0) {
    const negative = naturalRange(Math.max(1, -high), -low);
    if (negative) parts.push(`"-" ${negative}`);
  }
  if (high >= 0) {
    const natural = naturalRange(Math.max(0, low), high);
    if (natural) parts.push(natural);
  }
  return parts.length ? alt(parts) : undefined;
}

/** The integers a range admits, clamped to what the grammar spells exactly. */
export function integerBounds(range: NumberRange): [number, number] {
  let low = -LIMIT;
  let high = LIMIT;
  if (range.minimum !== undefined) low = Math.max(low, Math.ceil(range.minimum));
  if (range.exclusiveMinimum !== undefined)
    low = Math.max(low, Math.floor(range.exclusiveMinimum) + 1);
  if (range.maximum !== undefined) high = Math.min(high, Math.floor(range.maximum));
  if (range.exclusiveMaximum !== undefined)
    high = Math.min(high, Math.ceil(range.exclusiveMaximum) - 1);
  return [low, high];
}

/** GBNF for JSON integers in the range; undefined when it holds none the grammar can spell. */
export function integerGrammar(range: NumberRange): string | undefined {
  const [low, high] = integerBounds(range);
  return integerRange(low, high);
}

function decimalsOf(value: number | undefined): number {
  if (value === undefined || !Number.isFinite(value)) return 0;
  const text = String(value);
  const exp = /e-(\d+)$/.exec(text);
  if (exp) return Number(exp[1]);
  return (text.split('.')[1] ?? '').length;
}

/**
 * GBNF for JSON numbers in the range: the integers in it, and decimals written with at least
 * `k` fraction digits (k: the range's own precision, at least one) whose whole span
 * [N/10^k, (N+1)/10^k) lies inside it. Undefined when the range is too narrow for k <= 6.
 */
export function numberGrammar(range: NumberRange): string | undefined {
  const k = Math.max(
    1,
    ...[range.minimum, range.maximum, range.exclusiveMinimum, range.exclusiveMaximum].map(
      decimalsOf,
    ),
  );
  if (k > MAX_FRACTION_DIGITS) return undefined;
  const scale = 10 ** k;
  const scaled = (v: number) => Math.round(v * scale);
  // The lowest and highest value, scaled (at most 15 digits in all, so exact as doubles);
  // the flags say whether the bound itself is in.
  const limit = (10 ** (MAX_INT_DIGITS - k) - 1) * scale;
  let [low, lowIn, high, highIn] = [-limit, true, limit, true];
  if (range.minimum !== undefined && scaled(range.minimum) > low) low = scaled(range.minimum);
  if (range.exclusiveMinimum !== undefined && scaled(range.exclusiveMinimum) >= low)
    [low, lowIn] = [scaled(range.exclusiveMinimum), false];
  if (range.maximum !== undefined && scaled(range.maximum) < high) high = scaled(range.maximum);
  if (range.exclusiveMaximum !== undefined && scaled(range.exclusiveMaximum) <= high)
    [high, highIn] = [scaled(range.exclusiveMaximum), false];
  const tail = ` [0-9]{0,${MAX_FRACTION_DIGITS}}`;
  const parts: string[] = [];
  const ints = integerGrammar(range);
  if (ints) parts.push(ints);
  // An inclusive bound that is not whole is itself a value (-2.5 for minimum -2.5).
  for (const bound of [range.minimum, range.maximum]) {
    if (bound !== undefined && !Number.isInteger(bound) && inRange(bound, range))
      parts.push(gbnfLiteral(String(bound)));
  }
  // Positive decimals "N/10^k followed by more digits": [N, N+1) (scaled) must fit in the range.
  const posFrom = Math.max(0, lowIn ? low : low + 1);
  const posTo = high - 1;
  const positive = scaledRange(posFrom, posTo, k);
  if (positive) parts.push(`${positive}${tail}`);
  // Exactly an exclusive lower bound, then digits that end in a non-zero one (0.0...1 for > 0).
  if (!lowIn && low >= 0 && low + 1 <= high) {
    const at = scaledRange(low, low, k);
    if (at) parts.push(`${at} [0-9]{0,${MAX_FRACTION_DIGITS - 1}} [1-9]`);
  }
  // Negative decimals "-M/10^k...": value in (-(M+1), -M] (scaled) must fit in the range.
  const negFrom = Math.max(0, highIn ? -high : -high + 1);
  const negTo = -low - 1;
  const negative = scaledRange(negFrom, negTo, k);
  if (negative) parts.push(`"-" ${negative}${tail}`);
  return parts.length ? alt(parts) : undefined;
}

/** Decimals N/10^k for N from `from` to `to` (non-negative), written with exactly k fraction digits. */
function scaledRange(from: number, to: number, k: number): string | undefined {
  if (from > to || from < 0) return undefined;
  const scale = 10 ** k;
  const [intFrom, fracFrom] = [Math.floor(from / scale), from % scale];
  const [intTo, fracTo] = [Math.floor(to / scale), to % scale];
  const frac = (a: number, b: number) =>
    alt(sameLength(String(a).padStart(k, '0'), String(b).padStart(k, '0')));
  if (intFrom === intTo) return `"${intFrom}." ${frac(fracFrom, fracTo)}`;
  const parts = [`"${intFrom}." ${frac(fracFrom, scale - 1)}`];
  const middle = naturalRange(intFrom + 1, intTo - 1);
  if (middle) parts.push(`${middle} "." [0-9]{${k}}`);
  parts.push(`"${intTo}." ${frac(0, fracTo)}`);
  return alt(parts);
}

function inRange(value: number, range: NumberRange): boolean {
  return (
    Number.isFinite(value) &&
    !/e/i.test(String(value)) &&
    (range.minimum === undefined || value >= range.minimum) &&
    (range.maximum === undefined || value <= range.maximum) &&
    (range.exclusiveMinimum === undefined || value > range.exclusiveMinimum) &&
    (range.exclusiveMaximum === undefined || value < range.exclusiveMaximum)
  );
}
