import { expect } from 'vitest';
import { ToolCallSyntaxError } from '../../../src/main/core/toolcall/errors.js';

/** The AST without source positions, for structural comparison. */
export function strip<T>(node: T): unknown {
  if (Array.isArray(node)) return node.map(strip);
  if (typeof node !== 'object' || node === null) return node;
  return Object.fromEntries(
    Object.entries(node)
      .filter(([k]) => k !== 'span' && k !== 'keySpan')
      .map(([k, v]) => [k, strip(v)]),
  );
}

/** Runs fn and returns the ToolCallSyntaxError it must throw. */
export function syntaxError(fn: () => unknown): ToolCallSyntaxError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ToolCallSyntaxError);
    return error as ToolCallSyntaxError;
  }
  throw new Error('expected a ToolCallSyntaxError');
}

/** mulberry32: a small seeded PRNG so fuzz runs are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
