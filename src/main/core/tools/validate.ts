/**
 * Arguments are checked against the tool's JSON Schema before policy or execution. A failure is
 * never an exception: it becomes a structured tool result naming each violated schema fragment,
 * so the model can correct itself on the next turn.
 */
import type { Ajv, ErrorObject, ValidateFunction } from 'ajv';

export interface Violation {
  /** JSON pointer into the arguments (`/path`, `` for the whole object). */
  path: string;
  /** Where in the schema the rule lives (`#/properties/limit/minimum`). */
  schemaPath: string;
  keyword: string;
  message: string;
}

export interface InvalidArguments {
  error: 'invalid_arguments';
  tool: string;
  violations: Violation[];
}

/**
 * One ajv with the formats. The validator's code (~280 KB) loads with the first call to check:
 * a text turn never loads it.
 */
async function makeAjv(validateSchema: boolean): Promise<Ajv> {
  return (await import('./ajv.js')).makeAjv(validateSchema);
}

export class ArgumentValidator {
  /** Schemas from manifests, MCP servers and tool modules: checked against the meta-schema. */
  private checked?: Promise<Ajv>;
  /**
   * Pincer's own tools' schemas (`test/unit/tools/builtin-schemas.test.ts` checks each against the
   * meta-schema): compiled directly, sparing the first tool call the meta-schema's compilation
   * (~30 ms). Both are made on first use: a text turn validates nothing.
   */
  private own?: Promise<Ajv>;
  private readonly cache = new Map<string, ValidateFunction>();

  private ajvFor(origin: 'own' | 'foreign'): Promise<Ajv> {
    if (origin === 'own') {
      this.own ??= makeAjv(false);
      return this.own;
    }
    this.checked ??= makeAjv(true);
    return this.checked;
  }

  /** Undefined when valid; the structured error otherwise. `own`: a builtin tool's schema. */
  async check(
    tool: string,
    schema: Record<string, unknown>,
    input: unknown,
    origin: 'own' | 'foreign' = 'foreign',
  ): Promise<InvalidArguments | undefined> {
    let validate = this.cache.get(tool);
    if (!validate) {
      const ajv = await this.ajvFor(origin);
      try {
        validate = ajv.compile(schema);
      } catch (error) {
        return {
          error: 'invalid_arguments',
          tool,
          violations: [
            {
              path: '',
              schemaPath: '#',
              keyword: 'schema',
              message: `the tool's schema does not compile: ${(error as Error).message}`,
            },
          ],
        };
      }
      this.cache.set(tool, validate);
    }
    if (validate(input)) return undefined;
    return { error: 'invalid_arguments', tool, violations: (validate.errors ?? []).map(violation) };
  }

  forget(tool: string): void {
    this.cache.delete(tool);
  }
}

function violation(error: ErrorObject): Violation {
  const extra =
    error.keyword === 'additionalProperties'
      ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})`
      : error.keyword === 'required'
        ? ` (${String((error.params as { missingProperty?: string }).missingProperty)})`
        : '';
  return {
    path: error.instancePath,
    schemaPath: error.schemaPath,
    keyword: error.keyword,
    message: `${error.instancePath || 'arguments'} ${error.message ?? 'is invalid'}${extra}`,
  };
}
