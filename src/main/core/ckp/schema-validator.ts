/** The JSON Schema check itself (ajv), loaded on demand by json-schema-check.ts. */
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

export function checkSchemaObject(record: Record<string, unknown>): string | undefined {
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
