/**
 * Specs already validated, by content: the typed spec zod made of each, so a process that reads
 * the same manifest again skips zod's parse (the default manifest's ~25 ms at start, most of it
 * zod compiling each schema's fast path on first use). Only clean parses are kept: a spec with
 * any problem is parsed, and reported, every time.
 */
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { SPEC_SCHEMA_REVISION } from './schemas.js';

export interface SpecParses {
  get(key: string): unknown;
  set(key: string, spec: unknown): void;
}

export function specKey(kind: string, spec: unknown): string {
  return createHash('sha256')
    .update(`${SPEC_SCHEMA_REVISION}\0${kind}\0${JSON.stringify(spec)}`)
    .digest('hex');
}

/** Keeps a parse only if JSON gives it back unchanged (no undefined-valued keys, no NaN). */
export function keepSpec(parses: SpecParses, key: string, spec: unknown): void {
  if (isDeepStrictEqual(JSON.parse(JSON.stringify(spec)), spec)) parses.set(key, spec);
}
