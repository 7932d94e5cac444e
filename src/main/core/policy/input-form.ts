/**
 * A form an MCP server asks the user to fill mid-call (`elicitation/create`), read as hostile
 * input. Only the MCP specification's restricted form schema is accepted: a flat object whose
 * properties are strings (optional format email, uri, date or date-time; minLength, maxLength),
 * numbers or integers (minimum, maximum), booleans, or single-choice string enums (`enum`, with
 * or without `enumNames`, or `oneOf` of `const` + `title`). Any other keyword or shape, more
 * than INPUT_FORM_LIMITS.fields properties, or a message or label over its bound is refused
 * whole, with a reason, before anything is shown to anyone.
 *
 * What surfaces render is the normalized `InputForm` built here, never the server's schema; an
 * answer is checked (ajv) against a schema rebuilt from that form, so it holds exactly what the
 * form showed.
 */
import type { Ajv, ValidateFunction } from 'ajv';
import { PincerError } from '../errors.js';

export const INPUT_FORM_LIMITS = {
  /** Characters of the server's message. */
  message: 2000,
  fields: 20,
  nameChars: 64,
  titleChars: 200,
  descriptionChars: 1000,
  options: 50,
  optionChars: 200,
  /** Longest string a field may ask for (maxLength) or default to. */
  valueChars: 10_000,
} as const;

export type InputFormat = 'email' | 'uri' | 'date' | 'date-time';
const FORMATS: readonly InputFormat[] = ['email', 'uri', 'date', 'date-time'];

interface FieldBase {
  /** The property name: the key of the answer. */
  name: string;
  title?: string;
  description?: string;
  required: boolean;
  /** It reads like a password, key or other secret (a text field). */
  sensitive?: true;
}

export type InputField =
  | (FieldBase & {
      kind: 'string';
      format?: InputFormat;
      minLength?: number;
      maxLength?: number;
      default?: string;
    })
  | (FieldBase & {
      kind: 'number' | 'integer';
      minimum?: number;
      maximum?: number;
      default?: number;
    })
  | (FieldBase & { kind: 'boolean'; default?: boolean })
  | (FieldBase & {
      kind: 'enum';
      options: Array<{ value: string; label: string }>;
      default?: string;
    });

export interface InputForm {
  message: string;
  fields: InputField[];
  /** It asks for a password, key or other secret: surfaces show `warning` with the form. */
  sensitive?: true;
  warning?: string;
}

/** What every surface shows with a form that asks for a secret. */
export const SENSITIVE_INPUT_WARNING =
  'This form asks for a password, key or other secret. An MCP server should not collect credentials this way: do not type one unless you trust this server and expected it to ask.';

/** Words of a form that asks for a credential, in a field's name, title or description. */
const SENSITIVE =
  /pass(?:word|phrase|wd|code)|secret|token|api[\s_.-]?key|private[\s_.-]?key|credential|\bpin\b|\botp\b|\b2fa\b|\bmfa\b|\bcvv\b|\bcvc\b|card[\s_.-]?number|\bssn\b|seed[\s_.-]?phrase|mnemonic/i;

/** An answer's values: what the MCP result's `content` may hold for this form. */
export type InputContent = Record<string, string | number | boolean>;

export type FormReading = { ok: true; form: InputForm } | { ok: false; reason: string };

const NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
const TOP_KEYS = new Set(['type', 'properties', 'required', 'title', 'description', '$schema']);
const COMMON_KEYS = ['type', 'title', 'description', 'default'];
const KEYS: Record<string, Set<string>> = {
  string: new Set([...COMMON_KEYS, 'format', 'minLength', 'maxLength']),
  enum: new Set([...COMMON_KEYS, 'enum', 'enumNames', 'oneOf']),
  number: new Set([...COMMON_KEYS, 'minimum', 'maximum']),
  boolean: new Set(COMMON_KEYS),
};

/** Internal: unwinds the reading; readInputForm turns it into its `reason`. */
class Refused extends PincerError {
  override readonly name = 'FormRefused';
  constructor(message: string) {
    super('invalid_request', message);
  }
}

function refuse(reason: string): never {
  throw new Refused(reason);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown, what: string, max: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') refuse(`${what} must be a string`);
  if (value.length > max) refuse(`${what} is longer than ${max} characters`);
  return value;
}

function count(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (
    !Number.isInteger(value) ||
    (value as number) < 0 ||
    (value as number) > INPUT_FORM_LIMITS.valueChars
  )
    refuse(`${what} must be an integer from 0 to ${INPUT_FORM_LIMITS.valueChars}`);
  return value as number;
}

function finite(value: unknown, what: string): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) refuse(`${what} must be a number`);
  return value;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

/** The server's message and requestedSchema as a form, or why they are refused. */
export function readInputForm(message: unknown, requestedSchema: unknown): FormReading {
  try {
    return { ok: true, form: readForm(message, requestedSchema) };
  } catch (error) {
    if (error instanceof Refused) return { ok: false, reason: error.message };
    throw error;
  }
}

function readForm(message: unknown, schema: unknown): InputForm {
  const said = text(message, 'the message', INPUT_FORM_LIMITS.message) ?? refuse('no message');
  if (!isRecord(schema)) refuse('requestedSchema must be an object schema');
  for (const key of Object.keys(schema))
    if (!TOP_KEYS.has(key)) refuse(`requestedSchema may not use "${key}"`);
  if (schema.type !== 'object') refuse('requestedSchema must have type "object"');
  const properties = schema.properties;
  if (!isRecord(properties)) refuse('requestedSchema needs its properties');
  const names = Object.keys(properties);
  if (names.length === 0) refuse('requestedSchema has no properties');
  if (names.length > INPUT_FORM_LIMITS.fields)
    refuse(`a form may have at most ${INPUT_FORM_LIMITS.fields} properties, not ${names.length}`);
  const required = schema.required ?? [];
  if (!Array.isArray(required) || !required.every((name) => typeof name === 'string'))
    refuse('required must be a list of property names');
  for (const name of required)
    if (!Object.hasOwn(properties, name))
      refuse('required names a property the form does not have');
  const fields = names.map((name) =>
    markSensitive(readField(name, properties[name], required.includes(name))),
  );
  const sensitive = fields.some((field) => field.sensitive) || SENSITIVE.test(said);
  return {
    message: said,
    fields,
    ...(sensitive ? { sensitive: true as const, warning: SENSITIVE_INPUT_WARNING } : {}),
  };
}

/** A text field whose name, title or description asks for a secret. */
function markSensitive(field: InputField): InputField {
  if (field.kind !== 'string') return field;
  const words = [field.name, field.title ?? '', field.description ?? ''].join(' ');
  return SENSITIVE.test(words) ? { ...field, sensitive: true } : field;
}

function readField(name: string, spec: unknown, required: boolean): InputField {
  if (name.length > INPUT_FORM_LIMITS.nameChars || !NAME.test(name))
    refuse(
      `property names are letters, digits, _ . - (at most ${INPUT_FORM_LIMITS.nameChars}), starting with a letter or _`,
    );
  if (!isRecord(spec)) refuse(`${name}: must be a schema object`);
  const shape =
    spec.type === 'string'
      ? spec.enum !== undefined || spec.oneOf !== undefined
        ? 'enum'
        : 'string'
      : spec.type === 'number' || spec.type === 'integer'
        ? 'number'
        : spec.type === 'boolean'
          ? 'boolean'
          : refuse(
              `${name}: only string, number, integer, boolean and string enum properties are allowed (not nested objects or lists)`,
            );
  for (const key of Object.keys(spec))
    if (!KEYS[shape]?.has(key)) refuse(`${name}: the keyword "${key}" is not allowed in a form`);
  const base: FieldBase = {
    name,
    required,
    ...optional('title', text(spec.title, `${name}: title`, INPUT_FORM_LIMITS.titleChars)),
    ...optional(
      'description',
      text(spec.description, `${name}: description`, INPUT_FORM_LIMITS.descriptionChars),
    ),
  };
  switch (shape) {
    case 'string': {
      if (spec.format !== undefined && !FORMATS.includes(spec.format as InputFormat))
        refuse(`${name}: format must be one of ${FORMATS.join(', ')}`);
      const minLength = count(spec.minLength, `${name}: minLength`);
      const maxLength = count(spec.maxLength, `${name}: maxLength`);
      if (minLength !== undefined && maxLength !== undefined && minLength > maxLength)
        refuse(`${name}: minLength is above maxLength`);
      return {
        ...base,
        kind: 'string',
        ...optional('format', spec.format as InputFormat | undefined),
        ...optional('minLength', minLength),
        ...optional('maxLength', maxLength),
        ...optional(
          'default',
          text(spec.default, `${name}: default`, INPUT_FORM_LIMITS.valueChars),
        ),
      };
    }
    case 'number': {
      const minimum = finite(spec.minimum, `${name}: minimum`);
      const maximum = finite(spec.maximum, `${name}: maximum`);
      if (minimum !== undefined && maximum !== undefined && minimum > maximum)
        refuse(`${name}: minimum is above maximum`);
      const fallback = finite(spec.default, `${name}: default`);
      return {
        ...base,
        kind: spec.type === 'integer' ? 'integer' : 'number',
        ...optional('minimum', minimum),
        ...optional('maximum', maximum),
        ...optional('default', fallback),
      };
    }
    case 'boolean': {
      if (spec.default !== undefined && typeof spec.default !== 'boolean')
        refuse(`${name}: default must be true or false`);
      return {
        ...base,
        kind: 'boolean',
        ...optional('default', spec.default as boolean | undefined),
      };
    }
    default: {
      const options = enumOptions(name, spec);
      const fallback = text(spec.default, `${name}: default`, INPUT_FORM_LIMITS.optionChars);
      if (fallback !== undefined && !options.some((option) => option.value === fallback))
        refuse(`${name}: default is not one of the options`);
      return { ...base, kind: 'enum', options, ...optional('default', fallback) };
    }
  }
}

type Option = { value: string; label: string };

function enumOptions(name: string, spec: Record<string, unknown>): Option[] {
  const max = INPUT_FORM_LIMITS.optionChars;
  let options: Option[];
  if (spec.oneOf !== undefined) {
    if (spec.enum !== undefined || spec.enumNames !== undefined)
      refuse(`${name}: use oneOf or enum, not both`);
    if (!Array.isArray(spec.oneOf)) refuse(`${name}: oneOf must be a list`);
    options = spec.oneOf.map((entry) => {
      if (!isRecord(entry) || Object.keys(entry).some((key) => key !== 'const' && key !== 'title'))
        refuse(`${name}: each oneOf entry is { const, title }`);
      const value =
        text(entry.const, `${name}: an option`, max) ?? refuse(`${name}: an option has no const`);
      return { value, label: text(entry.title, `${name}: an option title`, max) ?? value };
    });
  } else {
    if (!Array.isArray(spec.enum)) refuse(`${name}: enum must be a list`);
    const labels = spec.enumNames;
    if (labels !== undefined && (!Array.isArray(labels) || labels.length !== spec.enum.length))
      refuse(`${name}: enumNames must name each enum value`);
    options = spec.enum.map((value, at) => {
      const checked =
        text(value, `${name}: an option`, max) ?? refuse(`${name}: an option is missing`);
      return {
        value: checked,
        label: text(labels?.[at], `${name}: an option name`, max) ?? checked,
      };
    });
  }
  if (options.length === 0) refuse(`${name}: an enum needs at least one option`);
  if (options.length > INPUT_FORM_LIMITS.options)
    refuse(`${name}: at most ${INPUT_FORM_LIMITS.options} options`);
  if (new Set(options.map((option) => option.value)).size !== options.length)
    refuse(`${name}: options repeat`);
  return options;
}

/** The JSON Schema an answer must meet: rebuilt from the form, closed to other keys. */
export function answerSchema(form: InputForm): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const field of form.fields) {
    switch (field.kind) {
      case 'string':
        properties[field.name] = {
          type: 'string',
          ...optional('format', field.format),
          ...optional('minLength', field.minLength),
          maxLength: field.maxLength ?? INPUT_FORM_LIMITS.valueChars,
        };
        break;
      case 'number':
      case 'integer':
        properties[field.name] = {
          type: field.kind,
          ...optional('minimum', field.minimum),
          ...optional('maximum', field.maximum),
        };
        break;
      case 'boolean':
        properties[field.name] = { type: 'boolean' };
        break;
      case 'enum':
        properties[field.name] = { type: 'string', enum: field.options.map((o) => o.value) };
        break;
    }
  }
  return {
    type: 'object',
    properties,
    required: form.fields.filter((field) => field.required).map((field) => field.name),
    additionalProperties: false,
  };
}

let ajv: Ajv | undefined;
const compiled = new WeakMap<InputForm, ValidateFunction>();

/**
 * Loads the answer check (ajv with the formats): done when a form is asked, so no other path
 * loads the validator.
 */
export async function prepareAnswerCheck(): Promise<void> {
  if (ajv) return;
  const made = (await import('./answer-ajv.js')).makeAnswerAjv(FORMATS);
  ajv ??= made;
}

/**
 * What is wrong with an answer, one sentence per problem (none: it fits the form). Needs
 * `prepareAnswerCheck()` first.
 */
export function checkInputAnswer(form: InputForm, content: unknown): string[] {
  let validate = compiled.get(form);
  if (!validate) {
    if (!ajv) throw new Error('checkInputAnswer: call prepareAnswerCheck() first');
    validate = ajv.compile(answerSchema(form));
    compiled.set(form, validate);
  }
  if (validate(content)) return [];
  return (validate.errors ?? []).map((error) => {
    const field = error.instancePath.replace(/^\//, '');
    if (error.keyword === 'required') return `${String(error.params.missingProperty)} is required`;
    if (error.keyword === 'additionalProperties')
      return `${String(error.params.additionalProperty)} is not a field of this form`;
    return `${field || 'the answer'} ${error.message ?? 'is not valid'}`;
  });
}
