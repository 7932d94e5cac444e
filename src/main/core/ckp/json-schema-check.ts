/**
 * Is a value a valid JSON Schema? (CKP §5.4: a tool's input_schema MUST be one.) The validator
 * (ajv, ~280 KB of code) loads only when a schema needs checking: the verdicts vouch for the
 * schemas of a manifest read before, so a start on an unchanged manifest does not load it.
 */
import { createHash } from 'node:crypto';

let validator: typeof import('./schema-validator.js') | undefined;

/** Loads the validator; `checkJsonSchema` needs it for any schema the verdicts do not vouch for. */
export async function loadSchemaValidator(): Promise<void> {
  validator ??= await import('./schema-validator.js');
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

/** True when checking `schema` needs the validator loaded. */
export function needsValidator(schema: unknown, verdicts?: SchemaVerdicts): boolean {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return false;
  return !validator && !verdicts?.has(schemaKey(schema));
}

/**
 * Undefined when valid, else a short reason naming the offending schema location. A schema the
 * verdicts do not vouch for needs `loadSchemaValidator()` first.
 */
export function checkJsonSchema(schema: unknown, verdicts?: SchemaVerdicts): string | undefined {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    return 'must be a JSON Schema object';
  }
  const key = verdicts ? schemaKey(schema) : '';
  if (verdicts?.has(key)) return undefined;
  if (!validator) throw new Error('checkJsonSchema: call loadSchemaValidator() first');
  const problem = validator.checkSchemaObject(schema as Record<string, unknown>);
  if (!problem) verdicts?.add(key);
  return problem;
}
