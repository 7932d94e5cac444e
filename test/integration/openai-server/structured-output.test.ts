/**
 * Structured output that cannot break its schema, whatever the weights: the random tiny model
 * behind `startOpenAiServer`, driven by the official `openai` client, seeded, every reply
 * checked by ajv against the caller's schema (every keyword the grammar writes: integer and
 * number ranges with exclusive bounds, lengths with non-ASCII text, enum, const, pattern,
 * minItems/maxItems, nested objects, additionalProperties false) and for broken UTF-8.
 *
 * Before Pincer wrote its own grammar, the same seeds gave `"days": 385` for 1..7, numbers
 * like `8E4668883820750250` (Infinity), strings over maxLength and U+FFFD (see the report's
 * table). Count: SEEDS per schema keeps the file near a minute on a 2-core machine;
 * PINCER_STRUCTURED_SEEDS raises it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Ajv } from 'ajv';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import {
  generateApiKey,
  LocalBackend,
  type OpenAiServer,
  startOpenAiServer,
} from '../../../src/main/core/openai-server/index.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

const SEEDS = Number(process.env.PINCER_STRUCTURED_SEEDS ?? 3);
const MODEL = 'tiny-structured';

let dir = '';
let engine: LocalEngine;
let backend: LocalBackend;
let server: OpenAiServer;
let client: OpenAI;
const ajv = new Ajv({ strict: false });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-structured-'));
  const file = path.join(dir, `${MODEL}.gguf`);
  // The tiny vocabulary spells a tool's schema in ~900 tokens: room for it and the reply.
  await writeTinyGguf(file, {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 4096,
  });
  engine = new LocalEngine({
    modelPath: file,
    runtime: { gpu: false, threads: 2 },
    contextSize: 4096,
    maxConversations: 3,
    idleTimeoutMs: 0,
  });
  backend = new LocalBackend({ engine, slots: 2 });
  await backend.load();
  const key = generateApiKey();
  server = await startOpenAiServer({ backend, port: 0, apiKey: key });
  client = new OpenAI({ baseURL: server.baseUrl, apiKey: key, maxRetries: 0, timeout: 120_000 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.close();
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const object = (properties: Record<string, object>, optional: string[] = []) => ({
  type: 'object',
  properties,
  required: Object.keys(properties).filter((name) => !optional.includes(name)),
  additionalProperties: false,
});

/** Every keyword the grammar writes exactly, a schema each. */
const SCHEMAS: Record<string, Record<string, unknown>> = {
  days: object({ days: { type: 'integer', minimum: 1, maximum: 7 } }),
  integers: object({
    n: { type: 'integer', minimum: -3, maximum: 250 },
    m: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 100000 },
    any: { type: 'integer' },
  }),
  numbers: object({
    x: { type: 'number', minimum: -2.5, maximum: 3 },
    p: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
    age: { type: 'number' },
  }),
  strings: object({
    name: { type: 'string', minLength: 2, maxLength: 12 },
    note: { type: 'string', maxLength: 5, description: 'Kurz: ä, ö, 日本' },
    code: { type: 'string', pattern: '^[A-Z]{2}-[0-9]{3}$' },
  }),
  choices: object({
    color: { enum: ['rot', 'grün', 'blau'] },
    kind: { const: 'fixed' },
    level: { type: 'integer', enum: [1, 2, 3] },
  }),
  nested: object({
    tags: { type: 'array', items: { type: 'string', maxLength: 4 }, minItems: 1, maxItems: 3 },
    inner: object(
      {
        ok: { type: 'boolean' },
        at: { type: 'integer', minimum: 10, maximum: 20 },
        label: { type: 'string', minLength: 1, maxLength: 6 },
      },
      ['label'],
    ),
  }),
};

/** Why `text` breaks `schema`, or undefined when it is a valid reply. */
function problem(text: string, schema: Record<string, unknown>): string | undefined {
  if (text.includes('\uFFFD')) return `U+FFFD in ${text}`;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `not JSON: ${text}`;
  }
  const validate = ajv.compile(schema);
  return validate(value) ? undefined : `${text}: ${JSON.stringify(validate.errors?.[0])}`;
}

describe('response_format json_schema on the random-weights model', () => {
  it.each(Object.keys(SCHEMAS))(
    `%s: ${SEEDS} seeds, every reply valid`,
    async (name) => {
      const schema = SCHEMAS[name] as Record<string, unknown>;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const completion = await client.chat.completions.create({
          model: MODEL,
          messages: [{ role: 'user', content: `Fill in ${name}` }],
          response_format: { type: 'json_schema', json_schema: { name, schema, strict: true } },
          max_tokens: 200,
          seed,
        });
        const choice = completion.choices[0];
        expect(choice?.finish_reason, `seed ${seed}`).toBe('stop');
        expect(problem(choice?.message.content ?? '', schema), `seed ${seed}`).toBeUndefined();
      }
    },
    300_000,
  );
});

describe('tool_choice required on the random-weights model', () => {
  it.each(Object.keys(SCHEMAS))(
    `%s: ${SEEDS} seeds, a valid call or a clear error, never an invalid call`,
    async (name) => {
      const schema = SCHEMAS[name] as Record<string, unknown>;
      let valid = 0;
      for (let seed = 1; seed <= SEEDS; seed++) {
        const reply = await client.chat.completions
          .create({
            model: MODEL,
            messages: [{ role: 'user', content: `Call ${name}` }],
            tools: [{ type: 'function', function: { name, parameters: schema } }],
            tool_choice: 'required',
            max_tokens: 200,
            seed,
          })
          .catch((error: unknown) => error);
        if (reply instanceof OpenAI.APIError) {
          // The budget ran out on a keyword node-llama-cpp's function grammar cannot enforce.
          expect(reply.code).toBe('schema_unmet');
          expect(reply.message).toMatch(/no reply valid for the schema in \d+ tries/);
          continue;
        }
        if (reply instanceof Error) throw reply;
        const choice = (reply as OpenAI.ChatCompletion).choices[0];
        if (choice?.finish_reason === 'length') {
          // A loose string ran to max_tokens: answered as cut, with no call to take for valid.
          expect(choice.message.tool_calls).toBeUndefined();
          continue;
        }
        const call = choice?.message.tool_calls?.[0];
        expect(call?.type).toBe('function');
        if (call?.type !== 'function') continue;
        expect(problem(call.function.arguments, schema), `seed ${seed}`).toBeUndefined();
        valid++;
      }
      console.log(`[structured] tool ${name}: ${valid}/${SEEDS} valid calls, the rest refused`);
      // node-llama-cpp's function grammar has no decimal ranges, bounded exponents or patterns:
      // the numbers and strings schemas may be refused or cut on every seed of this random
      // model, never answered wrong.
      if (name !== 'numbers' && name !== 'strings') expect(valid).toBeGreaterThan(0);
    },
    300_000,
  );
});

describe('what the grammar cannot express is validated after generation', () => {
  it('multipleOf and uniqueItems: a valid reply or a schema_unmet error, never an invalid one', async () => {
    const schema = object({
      n: { type: 'integer', minimum: 0, maximum: 20, multipleOf: 7 },
      set: { type: 'array', items: { enum: [1, 2] }, maxItems: 2, uniqueItems: true },
    });
    const outcomes: string[] = [];
    for (let seed = 1; seed <= SEEDS + 1; seed++) {
      const reply = await client.chat.completions
        .create({
          model: MODEL,
          messages: [{ role: 'user', content: 'Pick' }],
          response_format: { type: 'json_schema', json_schema: { name: 'pick', schema } },
          max_tokens: 60,
          seed,
        })
        .catch((error: unknown) => error);
      if (reply instanceof OpenAI.APIError) {
        expect(reply.status).toBe(500);
        expect(reply.code).toBe('schema_unmet');
        outcomes.push('refused');
        continue;
      }
      const text = (reply as OpenAI.ChatCompletion).choices[0]?.message.content ?? '';
      expect(problem(text, schema), `seed ${seed}`).toBeUndefined();
      outcomes.push('valid');
    }
    console.log(`[structured] multipleOf/uniqueItems: ${outcomes.join(', ')}`);
  }, 300_000);

  it('a schema no reply can satisfy is a 400 naming where', async () => {
    const error = await client.chat.completions
      .create({
        model: MODEL,
        messages: [{ role: 'user', content: 'x' }],
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'never',
            schema: object({ n: { type: 'integer', minimum: 3, maximum: 2 } }),
          },
        },
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as Error).message).toMatch(/\/n admits no value/);
  });
});

describe('Responses API', () => {
  it('with a required function tool and 60 output tokens, the reply is the function call', async () => {
    const parameters = object({
      on: { type: 'boolean' },
      days: { type: 'integer', minimum: 1, maximum: 7 },
    });
    const validate = ajv.compile(parameters);
    for (let seed = 1; seed <= SEEDS; seed++) {
      const response = await client.responses.create({
        model: MODEL,
        input: `Set an alarm ${seed}`,
        tools: [{ type: 'function', name: 'alarm', strict: true, parameters }],
        tool_choice: 'required',
        max_output_tokens: 60,
        temperature: 1,
      });
      const call = response.output.find((item) => item.type === 'function_call');
      expect(call?.type, JSON.stringify(response.output)).toBe('function_call');
      if (call?.type !== 'function_call') continue;
      expect(call.name).toBe('alarm');
      expect(validate(JSON.parse(call.arguments)), call.arguments).toBe(true);
      expect(response.status).toBe('completed');
    }
  }, 300_000);
});
