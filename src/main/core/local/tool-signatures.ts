/**
 * Tool definitions as a small model reads them cheaply: one line per tool, a TypeScript-like
 * signature and its description, instead of the JSON schema Qwen's template dumps (about a third
 * of the tokens). The prompt only has to tell the model what exists; the grammar built from the
 * full schema is what makes every call valid, so detail the grammar enforces (string lengths,
 * long lists of allowed numbers, `additionalProperties: false`) is not repeated here. Names,
 * which arguments are required, and short enums stay.
 */

type Schema = Record<string, unknown>;

/** Enums longer than this are shown by the type of their values. */
const SHOWN_ENUM = 6;

const isSchema = (value: unknown): value is Schema =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function enumType(values: readonly unknown[]): string {
  if (values.length <= SHOWN_ENUM) return values.map((value) => JSON.stringify(value)).join('|');
  if (values.every((value) => Number.isInteger(value))) return 'int';
  if (values.every((value) => typeof value === 'number')) return 'number';
  if (values.every((value) => typeof value === 'string')) return 'string';
  return 'any';
}

/**
 * Object alternatives (a grammar's way to make properties optional) as one object: a property
 * is required when every alternative has it. node-llama-cpp's grammar requires every property
 * an object lists, so that is what `required` means here.
 */
function mergedObject(alternatives: readonly Schema[]): string {
  const order: string[] = [];
  const types = new Map<string, Set<string>>();
  const seen = new Map<string, number>();
  for (const alternative of alternatives) {
    const properties = isSchema(alternative.properties) ? alternative.properties : {};
    for (const [name, schema] of Object.entries(properties)) {
      if (!types.has(name)) {
        order.push(name);
        types.set(name, new Set());
      }
      types.get(name)?.add(typeOf(schema));
      seen.set(name, (seen.get(name) ?? 0) + 1);
    }
  }
  const fields = order.map((name) => {
    const optional = (seen.get(name) ?? 0) < alternatives.length ? '?' : '';
    return `${name}${optional}: ${[...(types.get(name) ?? [])].join('|')}`;
  });
  return `{${fields.join(', ')}}`;
}

function typeOf(schema: unknown): string {
  if (!isSchema(schema)) return 'any';
  if ('const' in schema) return JSON.stringify(schema.const);
  if (Array.isArray(schema.enum)) return enumType(schema.enum);
  const alternatives = (schema.oneOf ?? schema.anyOf) as unknown;
  if (Array.isArray(alternatives)) {
    const schemas = alternatives.filter(isSchema);
    if (schemas.length > 0 && schemas.every((s) => s.type === 'object' || isSchema(s.properties)))
      return mergedObject(schemas);
    return [...new Set(alternatives.map(typeOf))].join('|');
  }
  const type = schema.type;
  if (Array.isArray(type)) return type.map((t) => typeOf({ ...schema, type: t })).join('|');
  switch (type) {
    case 'string':
      return 'string';
    case 'integer':
      return 'int';
    case 'number':
      return 'number';
    case 'boolean':
      return 'bool';
    case 'null':
      return 'null';
    case 'array': {
      const item = typeOf(schema.items);
      return item.includes('|') ? `(${item})[]` : `${item}[]`;
    }
    case 'object': {
      if (isSchema(schema.properties)) return mergedObject([schema]);
      return isSchema(schema.additionalProperties)
        ? `{[key: string]: ${typeOf(schema.additionalProperties)}}`
        : 'object';
    }
    default:
      return 'any';
  }
}

/** `name(args) - description`, the arguments as one object type. */
export function toolSignature(
  name: string,
  description: string | undefined,
  params: unknown,
): string {
  const args = params === undefined ? '' : typeOf(params);
  const oneLine = description?.replace(/\s+/g, ' ').trim();
  return `${name}(${args === '{}' ? '' : args})${oneLine ? ` - ${oneLine}` : ''}`;
}
