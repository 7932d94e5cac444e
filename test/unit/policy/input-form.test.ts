/**
 * An MCP server's form read as hostile input: the specification's restricted schema is taken
 * (and normalized into what surfaces render), everything else is refused with a reason; answers
 * are checked against a schema rebuilt from the form, closed to other keys.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { readInputForm } from '../../../src/main/core/policy/index.js';
import {
  checkInputAnswer,
  INPUT_FORM_LIMITS,
  type InputForm,
  prepareAnswerCheck,
} from '../../../src/main/core/policy/input-form.js';

const schema = (properties: Record<string, unknown>, required?: string[]) => ({
  type: 'object',
  properties,
  ...(required ? { required } : {}),
});

function read(properties: Record<string, unknown>, required?: string[]): InputForm {
  const reading = readInputForm('Tell me', schema(properties, required));
  if (!reading.ok) throw new Error(reading.reason);
  return reading.form;
}

function refusal(message: unknown, requestedSchema: unknown): string {
  const reading = readInputForm(message, requestedSchema);
  if (reading.ok) throw new Error('accepted');
  return reading.reason;
}

describe('reading a server form', () => {
  it('normalizes every allowed kind of field', () => {
    const form = read(
      {
        name: { type: 'string', title: 'Name', minLength: 1, maxLength: 5, default: 'x' },
        when: { type: 'string', format: 'date-time' },
        count: { type: 'integer', minimum: 0, maximum: 9 },
        ratio: { type: 'number' },
        ok: { type: 'boolean', default: false },
        size: { type: 'string', enum: ['s', 'm'], enumNames: ['Small', 'Medium'] },
        plain: { type: 'string', enum: ['a'] },
        colour: { type: 'string', oneOf: [{ const: 'r', title: 'Red' }] },
      },
      ['name'],
    );
    expect(form.fields).toEqual([
      {
        name: 'name',
        title: 'Name',
        required: true,
        kind: 'string',
        minLength: 1,
        maxLength: 5,
        default: 'x',
      },
      { name: 'when', required: false, kind: 'string', format: 'date-time' },
      { name: 'count', required: false, kind: 'integer', minimum: 0, maximum: 9 },
      { name: 'ratio', required: false, kind: 'number' },
      { name: 'ok', required: false, kind: 'boolean', default: false },
      {
        name: 'size',
        required: false,
        kind: 'enum',
        options: [
          { value: 's', label: 'Small' },
          { value: 'm', label: 'Medium' },
        ],
      },
      { name: 'plain', required: false, kind: 'enum', options: [{ value: 'a', label: 'a' }] },
      { name: 'colour', required: false, kind: 'enum', options: [{ value: 'r', label: 'Red' }] },
    ]);
  });

  it.each([
    [
      'a nested object',
      schema({ a: { type: 'object', properties: {} } }),
      /not nested objects or lists/,
    ],
    [
      'a list',
      schema({ a: { type: 'array', items: { type: 'string' } } }),
      /not nested objects or lists/,
    ],
    [
      'an unknown keyword',
      schema({ a: { type: 'string', pattern: 'x' } }),
      /"pattern" is not allowed/,
    ],
    [
      'an unknown top-level key',
      { ...schema({ a: { type: 'string' } }), $ref: '#/x' },
      /may not use "\$ref"/,
    ],
    ['another format', schema({ a: { type: 'string', format: 'ipv4' } }), /format must be one of/],
    ['no properties', schema({}), /no properties/],
    [
      'a required name that is not a property',
      schema({ a: { type: 'string' } }, ['b']),
      /required names a property/,
    ],
    [
      'a property name with odd characters',
      schema({ 'a b': { type: 'string' } }),
      /property names are/,
    ],
    [
      'min above max',
      schema({ a: { type: 'integer', minimum: 5, maximum: 1 } }),
      /minimum is above maximum/,
    ],
    [
      'a default of the wrong type',
      schema({ a: { type: 'boolean', default: 'yes' } }),
      /true or false/,
    ],
    [
      'a default that is not an option',
      schema({ a: { type: 'string', enum: ['x'], default: 'y' } }),
      /not one of the options/,
    ],
    [
      'enumNames that do not match',
      schema({ a: { type: 'string', enum: ['x', 'y'], enumNames: ['X'] } }),
      /name each enum value/,
    ],
    [
      'oneOf with enum',
      schema({ a: { type: 'string', enum: ['x'], oneOf: [{ const: 'x', title: 'X' }] } }),
      /not both/,
    ],
    ['repeated options', schema({ a: { type: 'string', enum: ['x', 'x'] } }), /options repeat/],
    [
      'an infinite bound',
      schema({ a: { type: 'number', maximum: Number.POSITIVE_INFINITY } }),
      /must be a number/,
    ],
    ['a huge maxLength', schema({ a: { type: 'string', maxLength: 1e9 } }), /integer from 0/],
  ])('refuses %s', (_, requested, why) => {
    expect(refusal('Tell me', requested)).toMatch(why);
  });

  it('bounds the message, the field count and the labels', () => {
    const one = schema({ a: { type: 'string' } });
    expect(refusal('x'.repeat(INPUT_FORM_LIMITS.message + 1), one)).toMatch(/message is longer/);
    expect(refusal(42, one)).toMatch(/message must be a string/);
    const many = Object.fromEntries(
      Array.from({ length: INPUT_FORM_LIMITS.fields + 1 }, (_, i) => [`f${i}`, { type: 'string' }]),
    );
    expect(refusal('x', schema(many))).toMatch(/at most 20 properties, not 21/);
    expect(
      refusal(
        'x',
        schema({ a: { type: 'string', title: 't'.repeat(INPUT_FORM_LIMITS.titleChars + 1) } }),
      ),
    ).toMatch(/title is longer/);
    const options = Array.from({ length: INPUT_FORM_LIMITS.options + 1 }, (_, i) => `o${i}`);
    expect(refusal('x', schema({ a: { type: 'string', enum: options } }))).toMatch(
      /at most 50 options/,
    );
  });
});

describe('checking an answer', () => {
  // What InputBroker.request does before a form is shown.
  beforeAll(() => prepareAnswerCheck());

  const form = read(
    {
      name: { type: 'string', minLength: 2 },
      email: { type: 'string', format: 'email' },
      age: { type: 'integer', maximum: 150 },
      size: { type: 'string', enum: ['s', 'm'] },
    },
    ['name'],
  );

  it('accepts what fits, optional fields left out', () => {
    expect(checkInputAnswer(form, { name: 'Ada' })).toEqual([]);
    expect(checkInputAnswer(form, { name: 'Ada', email: 'a@b.org', age: 3, size: 'm' })).toEqual(
      [],
    );
  });

  it('says what does not fit, field by field', () => {
    expect(
      checkInputAnswer(form, { email: 'nope', age: 2.5, size: 'xl', other: 1 }).sort(),
    ).toEqual(
      [
        'name is required',
        'other is not a field of this form',
        'email must match format "email"',
        'age must be integer',
        'size must be equal to one of the allowed values',
      ].sort(),
    );
    expect(checkInputAnswer(form, { name: 'A' })).toEqual([
      'name must NOT have fewer than 2 characters',
    ]);
    expect(checkInputAnswer(form, 'Ada')).toEqual(['the answer must be object']);
  });
});

describe('a form that asks for a secret', () => {
  it('is marked sensitive, with the warning every surface shows, and names the field', () => {
    const form = read({
      user: { type: 'string', title: 'User name' },
      password: { type: 'string', title: 'Password' },
      key: { type: 'string', description: 'Your API key' },
    });
    expect(form.sensitive).toBe(true);
    expect(form.warning).toMatch(/password, key or other secret/);
    expect(form.fields.map((field) => [field.name, field.sensitive === true])).toEqual([
      ['user', false],
      ['password', true],
      ['key', true],
    ]);
  });

  it('a message asking for a passphrase marks the form too; an ordinary form is not marked', () => {
    const asked = readInputForm('Enter your vault passphrase', {
      type: 'object',
      properties: { value: { type: 'string' } },
    });
    expect(asked.ok && asked.form.sensitive).toBe(true);
    const plain = read({ city: { type: 'string', title: 'City' } });
    expect(plain.sensitive).toBeUndefined();
    expect(plain.warning).toBeUndefined();
  });
});
