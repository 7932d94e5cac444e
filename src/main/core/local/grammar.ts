/**
 * Every grammar the local engine decodes JSON under, chosen here and nowhere else:
 *
 *  - **tool calls** (`grammarToolDefs`): node-llama-cpp's function grammar, which the engine
 *    uses whenever a request offers tools (the agent through the local provider, the OpenAI
 *    endpoint's `tools`). Each tool's parameters schema is first narrowed to one that grammar
 *    expresses exactly (below);
 *  - **structured replies** (`replyGrammar`): Pincer's own GBNF from json-grammar.ts, for a
 *    reply that must be JSON valid for a schema (the endpoint's `response_format`, a
 *    `jsonSchema` request to the local provider or the engine).
 *
 * The tool registry serves canonical schemas; only the local engine's callers narrow them.
 *
 * Why narrow: once the model emits `<tool_call>`, node-llama-cpp constrains the name to the
 * given functions and the arguments to a GBNF grammar built from each schema. The gaps, shown
 * by test/integration/local/grammar.test.ts:
 *
 *  - the grammar understands only a subset of JSON Schema: `minimum`/`maximum`, `pattern`,
 *    most `format`s, `anyOf`, `allOf`, `$ref` outside `$defs` and `required` are ignored, so a
 *    grammar-valid call can still fail validation (`limit: -3` for `minimum: 1`);
 *  - every listed property is emitted (optional ones too), and strings, arrays and numbers are
 *    unbounded, so a weak model can wander inside a string until max_tokens and never close
 *    the call.
 *
 * `grammarSchema` closes them by narrowing each input schema to one the grammar expresses
 * exactly and whose every instance is valid for the original: bounded integer ranges become
 * enums, optional properties the grammar cannot express are left out, and optional properties
 * may be omitted as a whole (one alternative with only the required ones). What cannot be
 * narrowed exactly (a required `pattern` or `format: uri` string) stays loose and is reported;
 * the validation guard still checks every call before it runs.
 */
import { LocalEngineError } from './errors.js';
import { type JsonGrammar, jsonSchemaGrammar } from './json-grammar.js';
import { schemaBoundsProblem } from './schema-bounds.js';

type Schema = Record<string, unknown>;

export interface GrammarBounds {
  /** Longest string the grammar admits (unbounded by default; tests bound weak models). */
  maxString?: number;
  /** Most array items the grammar admits. */
  maxArrayItems?: number;
  /** Most distinct values a bounded number range becomes (default 40). */
  maxEnum?: number;
}

export interface NarrowedSchema {
  schema: Schema;
  /** Every instance the grammar admits validates against the original schema. */
  exact: boolean;
  /** Where and why it is not exact, or what it left out (`/url: format uri`). */
  notes: string[];
}

interface Walk {
  bounds: GrammarBounds;
  notes: string[];
  exact: boolean;
}

const ANNOTATIONS = new Set([
  'description',
  'title',
  'default',
  'examples',
  '$schema',
  '$id',
  '$comment',
  'readOnly',
  'writeOnly',
  'deprecated',
]);
const GRAMMAR_FORMATS = new Set(['date-time', 'date', 'time']);

/**
 * Tool definitions as the function grammar should see them: each schema narrowed. A schema
 * past the grammar's bounds is left as it is (not walked), for the engine to refuse by name.
 */
export function grammarToolDefs<T extends { parameters?: Schema }>(
  tools: readonly T[],
  bounds: GrammarBounds = {},
): T[] {
  return tools.map((tool) =>
    tool.parameters && !schemaBoundsProblem(tool.parameters)
      ? { ...tool, parameters: grammarSchema(tool.parameters, bounds).schema }
      : tool,
  );
}

/**
 * The GBNF of a reply that must be JSON valid for `schema`. Pincer's own grammar rather than
 * node-llama-cpp's: it keeps numbers in range and finite, and strings valid UTF-8. Throws
 * (invalid_request) for a schema past the bounds a grammar is built from, or one no reply
 * satisfies.
 */
export function replyGrammar(schema: Schema): JsonGrammar {
  const problem = schemaBoundsProblem(schema);
  if (problem) throw new LocalEngineError('invalid_request', `The JSON schema: ${problem}`);
  return jsonSchemaGrammar(schema);
}

export function grammarSchema(schema: Schema, bounds: GrammarBounds = {}): NarrowedSchema {
  const walk: Walk = { bounds, notes: [], exact: true };
  const narrowed = node(schema, '', walk, true) ?? { type: 'object', properties: {} };
  return { schema: narrowed, exact: walk.exact, notes: walk.notes };
}

/**
 * Narrows one schema node. Undefined means "nothing the grammar can admit is certainly valid";
 * `loose` says whether the caller may fall back to an approximation (required properties) or
 * would rather leave the property out (optional ones).
 */
function node(schema: unknown, at: string, walk: Walk, loose: boolean): Schema | undefined {
  if (schema === true || (isObject(schema) && Object.keys(schema).every((k) => ANNOTATIONS.has(k))))
    return anyJson(at, walk, loose);
  if (!isObject(schema)) return inexact(at, 'an unsupported schema', walk, loose, undefined);
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const withDescription = (out: Schema | undefined) =>
    out && description ? { ...out, description } : out;

  for (const key of Object.keys(schema)) {
    if (ANNOTATIONS.has(key) || KNOWN.has(key)) continue;
    // allOf, not, if/then, patternProperties, dependentRequired, $ref, ...
    return inexact(at, `keyword ${key}`, walk, loose, withDescription(approximate(schema)));
  }
  if ('const' in schema) return withDescription({ const: schema.const as Schema['const'] });
  if (Array.isArray(schema.enum)) return withDescription(enumOf(schema, schema.enum, at, walk));
  if (Array.isArray(schema.anyOf) || Array.isArray(schema.oneOf)) {
    const branches = (schema.anyOf ?? schema.oneOf) as unknown[];
    // Grammar alternatives behave like anyOf; for oneOf, overlapping branches would be accepted.
    if (schema.oneOf && branches.length > 1) note(at, 'oneOf read as anyOf', walk, false);
    const out = branches
      .map((b, i) => node(b, `${at}/${schema.anyOf ? 'anyOf' : 'oneOf'}/${i}`, walk, false))
      .filter((b): b is Schema => b !== undefined);
    if (out.length === 0) return inexact(at, 'no branch is expressible', walk, loose, undefined);
    return withDescription(out.length === 1 ? out[0] : { oneOf: out });
  }
  const types = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type];
  if (types.length > 1) {
    const out = types
      .map((type) => node({ ...schema, type }, at, walk, false))
      .filter((b): b is Schema => b !== undefined);
    if (out.length === 0) return inexact(at, 'no type is expressible', walk, loose, undefined);
    return withDescription(out.length === 1 ? out[0] : { oneOf: out });
  }
  switch (types[0]) {
    case 'object':
      return withDescription(object(schema, at, walk));
    case 'array':
      return withDescription(array(schema, at, walk, loose));
    case 'string':
      return withDescription(string(schema, at, walk, loose));
    case 'integer':
    case 'number':
      return withDescription(number(schema, types[0], at, walk, loose));
    case 'boolean':
    case 'null':
      return withDescription({ type: types[0] });
    case undefined:
      return inexact(at, 'no type', walk, loose, withDescription(approximate(schema)));
    default:
      return inexact(at, `type ${String(types[0])}`, walk, loose, undefined);
  }
}

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'prefixItems',
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
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'uniqueItems',
  'minProperties',
  'maxProperties',
]);

function object(schema: Schema, at: string, walk: Walk): Schema | undefined {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const kept: Record<string, Schema> = {};
  for (const name of required) {
    if (!(name in properties)) {
      // A required property the schema does not describe: the grammar cannot name it.
      return inexact(`${at}/${name}`, 'required but not described', walk, true, undefined);
    }
  }
  for (const [name, sub] of Object.entries(properties)) {
    const out = node(sub, `${at}/${name}`, walk, required.has(name));
    if (out) kept[name] = out;
    else if (!required.has(name)) walk.notes.push(`${at}/${name}: left out`);
    else {
      // Required but inexpressible: any value keeps the call well formed; the guard judges it.
      note(`${at}/${name}`, 'not expressible', walk, false);
      kept[name] = anyJson(`${at}/${name}`, walk, true);
    }
  }
  if (schema.minProperties !== undefined || schema.maxProperties !== undefined)
    note(at, 'min/maxProperties', walk, false);
  // The grammar emits every listed property; offering a second alternative with only the
  // required ones lets the model leave the optional ones out.
  const all: Schema = { type: 'object', properties: kept, additionalProperties: false };
  const names = Object.keys(kept);
  if (names.every((n) => required.has(n))) return all;
  const minimal: Schema = {
    type: 'object',
    properties: Object.fromEntries(names.filter((n) => required.has(n)).map((n) => [n, kept[n]])),
    additionalProperties: false,
  };
  return { oneOf: [minimal, all] };
}

function array(schema: Schema, at: string, walk: Walk, loose: boolean): Schema | undefined {
  const out: Schema = { type: 'array' };
  if (schema.items !== undefined && schema.items !== true) {
    const items = node(schema.items, `${at}/items`, walk, false);
    if (!items) {
      // Only the empty array is certainly valid.
      if (typeof schema.minItems === 'number' && schema.minItems > 0)
        return inexact(at, 'items not expressible', walk, loose, undefined);
      return { type: 'array', maxItems: 0 };
    }
    out.items = items;
  }
  if (Array.isArray(schema.prefixItems)) {
    const prefix = schema.prefixItems.map((p, i) => node(p, `${at}/prefixItems/${i}`, walk, true));
    if (prefix.some((p) => !p)) return inexact(at, 'prefixItems', walk, loose, undefined);
    out.prefixItems = prefix;
  }
  const bound = walk.bounds.maxArrayItems;
  const min = typeof schema.minItems === 'number' ? schema.minItems : undefined;
  let max = typeof schema.maxItems === 'number' ? schema.maxItems : undefined;
  if (bound !== undefined && (max === undefined || max > bound)) max = Math.max(bound, min ?? 0);
  if (min !== undefined) out.minItems = min;
  if (max !== undefined) out.maxItems = max;
  if (schema.uniqueItems === true && (max === undefined || max > 1))
    note(at, 'uniqueItems', walk, false);
  return out;
}

function string(schema: Schema, at: string, walk: Walk, loose: boolean): Schema | undefined {
  const out: Schema = { type: 'string' };
  const format = typeof schema.format === 'string' ? schema.format : undefined;
  if (format && GRAMMAR_FORMATS.has(format)) {
    // The grammar's dates allow 31 days in every month; kept anyway, too useful to drop.
    note(at, `format ${format} (days per month unchecked)`, walk, false);
    return { type: 'string', format };
  }
  const min = typeof schema.minLength === 'number' ? schema.minLength : undefined;
  let max = typeof schema.maxLength === 'number' ? schema.maxLength : undefined;
  const bound = walk.bounds.maxString;
  if (bound !== undefined && (max === undefined || max > bound)) max = Math.max(bound, min ?? 0);
  if (min !== undefined) out.minLength = min;
  if (max !== undefined) out.maxLength = max;
  if (format) return inexact(at, `format ${format}`, walk, loose, out);
  if (typeof schema.pattern === 'string') return inexact(at, 'pattern', walk, loose, out);
  return out;
}

function number(
  schema: Schema,
  type: 'integer' | 'number',
  at: string,
  walk: Walk,
  loose: boolean,
): Schema | undefined {
  const num = (k: string) => (typeof schema[k] === 'number' ? (schema[k] as number) : undefined);
  let low = num('minimum');
  let high = num('maximum');
  const exMin = num('exclusiveMinimum');
  const exMax = num('exclusiveMaximum');
  const step = num('multipleOf');
  if (low === undefined && high === undefined && exMin === undefined && exMax === undefined) {
    if (step === undefined || (type === 'integer' && step === 1)) return { type };
  }
  // The grammar has no ranges: pick integers inside the range and offer them as an enum.
  if (exMin !== undefined) low = Math.max(low ?? -Infinity, Math.floor(exMin) + 1);
  if (exMax !== undefined) high = Math.min(high ?? Infinity, Math.ceil(exMax) - 1);
  const values = sampleRange(
    Math.ceil(low ?? Math.min(0, high ?? 0)),
    high === undefined ? undefined : Math.floor(high),
    walk.bounds.maxEnum ?? 40,
  ).filter((v) => step === undefined || Number.isInteger(v / step));
  if (values.length === 0) return inexact(at, 'empty number range', walk, loose, { type });
  return { enum: values };
}

/**
 * Every integer of a small range; of a large one, the start, a 1-2-5 ladder, and the end
 * (an open range stops the ladder at a million).
 */
export function sampleRange(low: number, top: number | undefined, most: number): number[] {
  const open = top === undefined;
  const high = top ?? Math.max(low + most, 1_000_000);
  if (high < low) return [];
  if (high - low + 1 <= most) return Array.from({ length: high - low + 1 }, (_, i) => low + i);
  const picked = new Set<number>();
  for (let v = low; v < low + Math.min(10, most / 2); v++) picked.add(v);
  // A closed range keeps one slot for its end.
  const room = open ? most : most - 1;
  for (let scale = 10; scale <= high && picked.size < room; scale *= 10) {
    for (const m of [1, 2, 5]) {
      const v = m * scale;
      if (v > low && v < high && picked.size < room) picked.add(v);
    }
  }
  if (!open) picked.add(high);
  return [...picked].sort((a, b) => a - b);
}

function jsonType(value: unknown, type: string): boolean {
  if (type === 'integer') return Number.isInteger(value);
  if (type === 'null') return value === null;
  return typeof value === type;
}

function enumOf(schema: Schema, values: unknown[], at: string, walk: Walk): Schema | undefined {
  const scalars = values.filter(
    (v) => v === null || ['string', 'number', 'boolean'].includes(typeof v),
  );
  if (scalars.length < values.length) note(at, 'non-scalar enum values left out', walk, true);
  // A type beside the enum can only remove values; keep those of that type.
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  const typed = type ? scalars.filter((v) => jsonType(v, type)) : scalars;
  return typed.length === 0 ? undefined : { enum: typed };
}

/** An unconstrained value: any scalar is valid, and the grammar stays small. */
function anyJson(at: string, walk: Walk, _loose: boolean): Schema {
  walk.notes.push(`${at || '/'}: any value, offered as a scalar`);
  return { oneOf: [{ type: 'string' }, { type: 'number' }, { type: 'boolean' }, { type: 'null' }] };
}

function approximate(schema: Schema): Schema | undefined {
  const type = typeof schema.type === 'string' ? schema.type : undefined;
  return type ? { type } : undefined;
}

function inexact(
  at: string,
  why: string,
  walk: Walk,
  loose: boolean,
  fallback: Schema | undefined,
): Schema | undefined {
  if (!loose || !fallback) return undefined;
  note(at, why, walk, false);
  return fallback;
}

function note(at: string, why: string, walk: Walk, exact: boolean): void {
  walk.notes.push(`${at || '/'}: ${why}`);
  if (!exact) walk.exact = false;
}

function isObject(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
