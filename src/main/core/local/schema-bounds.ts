/**
 * Bounds on a JSON schema before it becomes a grammar. node-llama-cpp turns every enum value
 * into an alternative of the grammar and walks the schema recursively, so a 100k-value enum or
 * a schema nested ten thousand deep costs minutes (or the stack) before the first token: a
 * request that passes these bounds is one whose grammar is cheap to build and to sample with.
 * Limits in the spirit of OpenAI's structured outputs.
 */
export const SCHEMA_BOUNDS = {
  /** Serialized size of one schema. */
  bytes: 64 * 1024,
  /** Enum values (and consts) across the whole schema. */
  enumValues: 1000,
  /** Nesting of objects and arrays in the schema's JSON. */
  depth: 32,
} as const;

/**
 * What is wrong with `schema` as a grammar's source, or undefined when it is within bounds.
 * Iterative: a schema nested past any stack is measured, not recursed into.
 */
export function schemaBoundsProblem(schema: unknown): string | undefined {
  const stack: Array<[value: unknown, depth: number]> = [[schema, 1]];
  let enumValues = 0;
  while (stack.length > 0) {
    const [value, depth] = stack.pop() as [unknown, number];
    if (typeof value !== 'object' || value === null) continue;
    if (depth > SCHEMA_BOUNDS.depth)
      return `the schema is nested deeper than ${SCHEMA_BOUNDS.depth} levels`;
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1]);
      continue;
    }
    const record = value as Record<string, unknown>;
    if (Array.isArray(record.enum)) enumValues += record.enum.length;
    if ('const' in record) enumValues++;
    if (enumValues > SCHEMA_BOUNDS.enumValues)
      return `the schema has more than ${SCHEMA_BOUNDS.enumValues} enum values`;
    for (const item of Object.values(record)) stack.push([item, depth + 1]);
  }
  // Measured last: stringifying is safe once the depth is known to be small.
  const bytes = Buffer.byteLength(JSON.stringify(schema) ?? '');
  if (bytes > SCHEMA_BOUNDS.bytes)
    return `the schema is ${bytes} bytes, more than the ${SCHEMA_BOUNDS.bytes} a grammar is built from`;
  return undefined;
}
