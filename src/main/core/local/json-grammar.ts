/**
 * A JSON Schema as Pincer's own GBNF, for replies that must match it whatever the weights.
 * node-llama-cpp's JSON-schema grammar ignores ranges and lets numbers take any exponent
 * (`8E4668883820750250` parses to Infinity) and strings hold code points that are not UTF-8
 * scalar values (they decode to U+FFFD). This one writes:
 *
 *  - integers and numbers inside minimum/maximum (exclusive too) with bounded digits and no
 *    exponent (number-grammar.ts), so always finite;
 *  - strings of minLength..maxLength characters, each a scalar value or an escape of one;
 *    `pattern` for the regular subset pattern-grammar.ts reads; date, time, date-time, uuid;
 *  - enum and const as literals, anyOf/oneOf as alternatives, local `$ref`s as rules;
 *  - objects with every required property, optional ones omittable, and nothing undeclared;
 *    arrays of minItems..maxItems items (prefixItems / tuple items first).
 *
 * What it cannot write exactly (multipleOf, uniqueItems, a length beside a pattern, oneOf's
 * "exactly one", minProperties, unknown keywords, ...) it approximates and reports in `notes`
 * with `exact: false`; the caller validates the reply against the original schema either way.
 * Compact JSON (no whitespace): every token spent goes to values.
 */
import { LocalEngineError } from './errors.js';
import { gbnfLiteral, integerGrammar, type NumberRange, numberGrammar } from './number-grammar.js';
import { JSON_STRING_CHAR, patternGrammar } from './pattern-grammar.js';

export interface JsonGrammar {
  gbnf: string;
  /** Every reply the grammar admits is valid for the schema. */
  exact: boolean;
  /** Where and why it is not exact (`/tags: uniqueItems`). */
  notes: string[];
}

/** Longest repetition the grammar counts (string characters, array items); above, unbounded. */
const MAX_COUNTED = 512;
const MAX_DEPTH = 64;

type Schema = Record<string, unknown>;

const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$schema',
  '$id',
  '$comment',
  '$defs',
  'definitions',
  'readOnly',
  'writeOnly',
  'deprecated',
  'strict',
  'name',
]);

const HANDLED = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'format',
  'pattern',
  'enum',
  'const',
  'anyOf',
  'oneOf',
  'allOf',
  '$ref',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  // Approximated; noted where they apply.
  'multipleOf',
  'uniqueItems',
  'contains',
  'minContains',
  'maxContains',
  'minProperties',
  'maxProperties',
  'patternProperties',
  'propertyNames',
]);

const QUOTE = '"\\""';

const FORMATS: Record<string, { rule: string; exact: boolean }> = {
  date: {
    rule: `${QUOTE} [0-9]{4} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) ${QUOTE}`,
    exact: false,
  },
  time: {
    rule: `${QUOTE} ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,3})? "Z" ${QUOTE}`,
    exact: true,
  },
  'date-time': {
    rule:
      `${QUOTE} [0-9]{4} "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01]) ` +
      `"T" ([01] [0-9] | "2" [0-3]) ":" [0-5] [0-9] ":" [0-5] [0-9] ("." [0-9]{1,3})? "Z" ${QUOTE}`,
    exact: false,
  },
  uuid: {
    rule: `${QUOTE} [0-9a-f]{8} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{4} "-" [0-9a-f]{12} ${QUOTE}`,
    exact: true,
  },
};

/** The grammar of replies valid for `schema`; throws `invalid_request` when none can be written. */
export function jsonSchemaGrammar(schema: unknown): JsonGrammar {
  const builder = new Builder(schema);
  const root = builder.value(schema, '', 0);
  return { gbnf: builder.file(root), exact: builder.notes.length === 0, notes: builder.notes };
}

class Builder {
  readonly notes: string[] = [];
  private readonly rules = new Map<string, string>();
  private readonly byBody = new Map<string, string>();
  private readonly refs = new Map<string, string>();
  private counter = 0;

  constructor(private readonly root: unknown) {}

  file(root: string): string {
    return [
      `root ::= ${root}`,
      ...[...this.rules].map(([name, body]) => `${name} ::= ${body}`),
    ].join('\n');
  }

  /** A rule for `body` (one per distinct body), referenced by name. */
  private rule(hint: string, body: string): string {
    const known = this.byBody.get(body);
    if (known) return known;
    const name = `${hint}${this.counter++}`;
    this.rules.set(name, body);
    this.byBody.set(body, name);
    return name;
  }

  private note(at: string, why: string): void {
    this.notes.push(`${at || '/'}: ${why}`);
  }

  value(schema: unknown, at: string, depth: number): string {
    if (depth > MAX_DEPTH) throw invalid(`${at}: the schema is nested more than ${MAX_DEPTH} deep`);
    if (schema === true || schema === undefined) return this.any();
    if (schema === false) throw unsatisfiable(at, 'the schema is false');
    if (!isObject(schema)) throw invalid(`${at || '/'}: not a schema`);
    for (const key of Object.keys(schema)) {
      if (!HANDLED.has(key) && !ANNOTATIONS.has(key)) this.note(at, `keyword ${key}`);
    }
    if (typeof schema.$ref === 'string') {
      if (Object.keys(schema).some((k) => k !== '$ref' && HANDLED.has(k)))
        this.note(at, 'keywords beside $ref');
      return this.ref(schema.$ref, depth);
    }
    if ('const' in schema) return literal(schema.const);
    if (Array.isArray(schema.enum)) {
      const type = schema.type;
      const values = schema.enum.filter((v) => type === undefined || typeMatches(v, type));
      if (values.length === 0) throw unsatisfiable(at, 'no enum value has the type');
      return alt(values.map(literal));
    }
    if (Array.isArray(schema.allOf)) {
      this.note(at, 'allOf merged');
      const { allOf, ...rest } = schema;
      return this.value(mergeAll([rest, ...(allOf as unknown[])]), at, depth);
    }
    const branches = (schema.anyOf ?? schema.oneOf) as unknown[] | undefined;
    if (Array.isArray(branches)) {
      if (schema.oneOf && branches.length > 1) this.note(at, 'oneOf read as anyOf');
      const { anyOf: _a, oneOf: _o, ...rest } = schema;
      const shared = Object.keys(rest).some((k) => HANDLED.has(k));
      return alt(
        branches.map((branch, i) =>
          this.value(
            shared && isObject(branch) ? { ...rest, ...branch } : branch,
            `${at}/${i}`,
            depth + 1,
          ),
        ),
      );
    }
    const types = Array.isArray(schema.type)
      ? (schema.type as unknown[])
      : [schema.type ?? inferType(schema)];
    if (types.length > 1)
      return alt(types.map((type) => this.value({ ...schema, type }, at, depth)));
    switch (types[0]) {
      case 'object':
        return this.object(schema, at, depth);
      case 'array':
        return this.array(schema, at, depth);
      case 'string':
        return this.string(schema, at);
      case 'integer':
        if (schema.multipleOf !== undefined) this.note(at, 'multipleOf');
        return this.rule('int', integerGrammar(range(schema)) ?? unsatisfiableRule(at));
      case 'number': {
        if (schema.multipleOf !== undefined) this.note(at, 'multipleOf');
        const body = numberGrammar(range(schema)) ?? integerGrammar(range(schema));
        return this.rule('num', body ?? unsatisfiableRule(at));
      }
      case 'boolean':
        return '("true" | "false")';
      case 'null':
        return '"null"';
      case undefined:
        return this.any();
      default:
        throw invalid(`${at || '/'}: unknown type ${String(types[0])}`);
    }
  }

  private ref(ref: string, depth: number): string {
    const known = this.refs.get(ref);
    if (known) return known;
    const target = resolvePointer(this.root, ref);
    if (target === undefined) throw invalid(`$ref ${ref} points nowhere in the schema`);
    const name = `ref${this.counter++}`;
    this.refs.set(ref, name);
    // Reserved first: a recursive schema refers to the rule being written.
    this.rules.set(name, '""');
    this.rules.set(name, this.value(target, ref.slice(1), depth + 1));
    return name;
  }

  private object(schema: Schema, at: string, depth: number): string {
    const properties = isObject(schema.properties) ? schema.properties : {};
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const additional = schema.additionalProperties;
    for (const key of ['minProperties', 'maxProperties', 'patternProperties', 'propertyNames']) {
      if (key in schema) this.note(at, key);
    }
    const pair = (name: string, sub: unknown) =>
      `${gbnfLiteral(`${JSON.stringify(name)}:`)} ${this.value(sub, `${at}/${name}`, depth + 1)}`;
    const must: string[] = [];
    const may: string[] = [];
    for (const [name, sub] of Object.entries(properties))
      (required.has(name) ? must : may).push(pair(name, sub));
    for (const name of required) {
      if (name in properties) continue;
      if (additional === false) throw unsatisfiable(`${at}/${name}`, 'required but not allowed');
      must.push(pair(name, isObject(additional) ? additional : true));
    }
    if (must.length === 0 && may.length === 0) {
      if (additional === false) return '"{}"';
      // A map: any keys, each value of the additionalProperties schema.
      const entry = `string ":" ${isObject(additional) ? this.value(additional, `${at}/*`, depth + 1) : 'value'}`;
      this.any();
      return this.rule('map', `"{" (${entry} ("," ${entry})*)? "}"`);
    }
    const optional = (list: string[]) => list.map((p) => `("," ${p})?`).join(' ');
    if (must.length > 0)
      return this.rule(
        'obj',
        `"{" ${must.join(' "," ')} ${optional(may)} "}"`.replace(/ {2,}/g, ' '),
      );
    // No required property: the first one written may be any of the optional ones.
    const starts = may.map((p, i) => `${p} ${optional(may.slice(i + 1))}`.trim());
    return this.rule('obj', `"{" (${starts.join(' | ')})? "}"`);
  }

  private array(schema: Schema, at: string, depth: number): string {
    for (const key of ['uniqueItems', 'contains', 'minContains', 'maxContains']) {
      if (key in schema && !(key === 'uniqueItems' && schema.uniqueItems === false))
        this.note(at, key);
    }
    const tupleSchemas = Array.isArray(schema.prefixItems)
      ? (schema.prefixItems as unknown[])
      : Array.isArray(schema.items)
        ? (schema.items as unknown[])
        : [];
    const restSchema = Array.isArray(schema.items)
      ? (schema.additionalItems ?? true)
      : Array.isArray(schema.prefixItems)
        ? (schema.items ?? true)
        : (schema.items ?? true);
    const min = typeof schema.minItems === 'number' ? Math.max(0, Math.ceil(schema.minItems)) : 0;
    const max = typeof schema.maxItems === 'number' ? Math.floor(schema.maxItems) : undefined;
    if (max !== undefined && max < min) throw unsatisfiable(at, 'maxItems below minItems');
    const tuple = tupleSchemas
      .slice(0, max ?? tupleSchemas.length)
      .map((s, i) => this.value(s, `${at}/${i}`, depth + 1));
    const restMin = Math.max(0, min - tuple.length);
    let restMax = max === undefined ? undefined : max - tuple.length;
    if (restSchema === false) {
      if (restMin > 0) throw unsatisfiable(at, 'minItems beyond the tuple');
      restMax = 0;
    }
    if (restMax !== undefined && restMax > MAX_COUNTED) {
      this.note(at, `maxItems above ${MAX_COUNTED}`);
      restMax = undefined;
    }
    if (restMin > MAX_COUNTED) throw invalid(`${at}: minItems above ${MAX_COUNTED}`);
    const item = restMax === 0 ? '' : this.value(restSchema, `${at}/items`, depth + 1);
    if (tuple.length > 0) {
      const rest = restMax === 0 ? '' : ` ("," ${item})${repeat(restMin, restMax)}`;
      return this.rule('arr', `"[" ${tuple.join(' "," ')}${rest} "]"`);
    }
    if (restMax === 0) return '"[]"';
    const tail = (from: number, to: number | undefined) =>
      to !== undefined && to <= 0 ? '' : ` ("," ${item})${repeat(from, to)}`;
    if (restMin > 0)
      return this.rule(
        'arr',
        `"[" ${item}${tail(restMin - 1, restMax === undefined ? undefined : restMax - 1)} "]"`,
      );
    return this.rule(
      'arr',
      `"[" (${item}${tail(0, restMax === undefined ? undefined : restMax - 1)})? "]"`,
    );
  }

  private string(schema: Schema, at: string): string {
    const min = typeof schema.minLength === 'number' ? Math.max(0, Math.ceil(schema.minLength)) : 0;
    let max = typeof schema.maxLength === 'number' ? Math.floor(schema.maxLength) : undefined;
    if (max !== undefined && max < min) throw unsatisfiable(at, 'maxLength below minLength');
    const lengthGiven = min > 0 || max !== undefined;
    if (typeof schema.format === 'string') {
      const format = FORMATS[schema.format];
      if (format) {
        if (!format.exact) this.note(at, `format ${schema.format} (days per month unchecked)`);
        if (lengthGiven || schema.pattern !== undefined)
          this.note(at, 'length or pattern beside a format');
        return this.rule('fmt', format.rule);
      }
      this.note(at, `format ${schema.format}`);
    }
    if (typeof schema.pattern === 'string') {
      const inner = patternGrammar(schema.pattern);
      if (inner) {
        if (lengthGiven) this.note(at, 'length beside a pattern');
        return this.rule('pat', `${QUOTE} ${inner} ${QUOTE}`);
      }
      this.note(at, `pattern ${schema.pattern}`);
    }
    this.chars();
    if (max !== undefined && max > MAX_COUNTED) {
      this.note(at, `maxLength above ${MAX_COUNTED}`);
      max = undefined;
    }
    if (min > MAX_COUNTED) throw invalid(`${at}: minLength above ${MAX_COUNTED}`);
    if (max === 0) return '"\\"\\""';
    return this.rule('str', `${QUOTE} char${repeat(min, max)} ${QUOTE}`);
  }

  private chars(): void {
    if (!this.rules.has('char')) this.rules.set('char', JSON_STRING_CHAR);
  }

  /** Any JSON value, numbers finite and strings valid. */
  private any(): string {
    if (this.rules.has('value')) return 'value';
    this.chars();
    this.rules.set('string', `${QUOTE} char* ${QUOTE}`);
    this.rules.set('number', numberGrammar({}) as string);
    this.rules.set(
      'value',
      '"{" (string ":" value ("," string ":" value)*)? "}" | "[" (value ("," value)*)? "]" | ' +
        'string | number | "true" | "false" | "null"',
    );
    return 'value';
  }
}

function repeat(min: number, max: number | undefined): string {
  if (max === undefined) return min === 0 ? '*' : min === 1 ? '+' : `{${min},}`;
  if (min === 0 && max === 1) return '?';
  return min === max ? `{${min}}` : `{${min},${max}}`;
}

const alt = (parts: string[]) => (parts.length === 1 ? String(parts[0]) : `(${parts.join(' | ')})`);

/** A JSON value written exactly. */
function literal(value: unknown): string {
  return gbnfLiteral(JSON.stringify(value));
}

function range(schema: Schema): NumberRange {
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  return {
    minimum: num('minimum'),
    maximum: num('maximum'),
    exclusiveMinimum: num('exclusiveMinimum'),
    exclusiveMaximum: num('exclusiveMaximum'),
  };
}

function typeMatches(value: unknown, type: unknown): boolean {
  const types = Array.isArray(type) ? type : [type];
  return types.some((t) => {
    if (t === 'integer') return Number.isInteger(value);
    if (t === 'null') return value === null;
    if (t === 'array') return Array.isArray(value);
    if (t === 'object') return isObject(value);
    return typeof value === t;
  });
}

function inferType(schema: Schema): string | undefined {
  if ('properties' in schema || 'required' in schema || 'additionalProperties' in schema)
    return 'object';
  if ('items' in schema || 'prefixItems' in schema || 'minItems' in schema || 'maxItems' in schema)
    return 'array';
  if ('minLength' in schema || 'maxLength' in schema || 'pattern' in schema || 'format' in schema)
    return 'string';
  if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].some((k) => k in schema))
    return 'number';
  return undefined;
}

/** allOf as one schema: properties and required united, the rest of each laid over the last. */
function mergeAll(parts: unknown[]): Schema {
  const out: Schema = {};
  const properties: Schema = {};
  const required = new Set<string>();
  for (const part of parts) {
    if (!isObject(part)) continue;
    Object.assign(out, part);
    if (isObject(part.properties)) Object.assign(properties, part.properties);
    if (Array.isArray(part.required)) for (const r of part.required) required.add(String(r));
  }
  if (Object.keys(properties).length) out.properties = properties;
  if (required.size) out.required = [...required];
  return out;
}

function resolvePointer(root: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) return undefined;
  let node = root;
  for (const raw of ref.slice(1).split('/').slice(1)) {
    const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    if (!isObject(node)) return undefined;
    node = node[key];
  }
  return node;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function invalid(message: string): LocalEngineError {
  return new LocalEngineError(
    'invalid_request',
    `This JSON schema cannot be turned into a grammar: ${message}`,
  );
}

function unsatisfiable(at: string, why: string): LocalEngineError {
  return invalid(`${at || '/'} admits no value (${why})`);
}

function unsatisfiableRule(at: string): never {
  throw unsatisfiable(at, 'no number in the range can be written with at most 15 digits');
}
