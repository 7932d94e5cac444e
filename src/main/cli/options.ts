/**
 * Parsers for numeric options. A value out of range or not a number is a usage error (exit 2)
 * naming the option and the range, never NaN or a negative passed on (SQLite reads `limit -1`
 * as no limit at all).
 */
import { InvalidArgumentError } from 'commander';

/** An integer option in [min, max]. */
export function integerIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value.trim());
    if (!/^[+-]?\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}.`);
    return n;
  };
}

/** A number option in [min, max]. */
export function numberIn(min: number, max: number): (value: string) => number {
  return (value) => {
    const n = Number(value.trim());
    if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max)
      throw new InvalidArgumentError(`expected a number from ${min} to ${max}.`);
    return n;
  };
}
