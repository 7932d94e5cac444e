/** Is a value a valid JSON Schema? (CKP §5.4: a tool's input_schema MUST be one.) */
import { createHash } from 'node:crypto';
import { Ajv } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';

// One instance per dialect, made lazily: building Ajv is far costlier than a check.
let draft07: Ajv | undefined;
let draft2020: Ajv2020 | undefined;

function ajvFor(schema: Record<string, unknown>): Ajv | Ajv2020 {
  const dialect = typeof schema.$schema === 'string' ? schema.$schema : '';
  if (dialect.includes('draft-07') || dialect.includes('draft-06')) {
    draft07 ??= new Ajv({ strict: false, allErrors: true, validateFormats: false });
    return draft07;
  }
  // MCP's current default dialect is 2020-12.
  draft2020 ??= new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return draft2020;
}

/**
 * Schemas already found valid, by `schemaKey`: the check compiles the JSON Schema meta-schema
 * (~50 ms for 2020-12) at every start, so a process that reads the same manifest again skips it.
 * Only valid verdicts are kept; an invalid schema is checked (and reported) every time.
 */
export interface SchemaVerdicts {
  has(key: string): boolean;
  add(key: string): void;
}

/** Changes when what this check accepts changes, so older verdicts no longer match. */
const CHECK_REVISION = 'ajv-8.20.0/1';

export function schemaKey(schema: unknown): string {
  return createHash('sha256')
    .update(`${CHECK_REVISION}\0${JSON.stringify(schema)}`)
    .digest('hex');
}

/** Undefined when valid, else a short reason naming the offending schema location. */
export function checkJsonSchema(schema: unknown, verdicts?: SchemaVerdicts): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'must be a JSON Schema object';
  }
  const key = verdicts ? schemaKey(schema) : '';
  if (verdicts?.has(key)) return undefined;
  const problem = checkSchemaObject(schema as Record<string, unknown>);
  if (!problem) verdicts?.add(key);
  return problem;
}

function checkSchemaObject(record: Record<string, unknown>): string | undefined {
  const ajv = ajvFor(record);
  if (!ajv.validateSchema(record)) {
    const first = ajv.errors?.[0];
    const at = first?.instancePath ? `at ${first.instancePath}` : 'at the root';
    return `is not a valid JSON Schema: ${at} ${first?.message ?? 'invalid'}`;
  }
  try {
    // Compiling catches what the meta-schema cannot (unresolvable $ref, bad patterns).
    ajv.compile(record);
  } catch (error) {
    return `is not a valid JSON Schema: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}
