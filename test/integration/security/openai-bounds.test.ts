/**
 * Every request to the OpenAI endpoint is bounded before work starts: a json_schema enum of 100k
 * strings (once 263 s of a stalled endpoint), a schema nested past any stack, a tool whose
 * parameters are such a schema, too many tools: each a 400 in OpenAI's error shape naming the
 * parameter, before the request waits for the model. The engine keeps a bounded number of
 * compiled grammars and does not build one for a request already cancelled. A malformed
 * percent-encoding or request target in the path is a 4xx, not a 500. Real server, real engine,
 * the generated tiny model.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAMMAR_CACHE_SIZE, LocalEngine } from '../../../src/main/core/local/engine.js';
import { SCHEMA_BOUNDS } from '../../../src/main/core/local/schema-bounds.js';
import {
  generateApiKey,
  LocalBackend,
  type OpenAiServer,
  startOpenAiServer,
} from '../../../src/main/core/openai-server/index.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

let dir = '';
let engine: LocalEngine;
let backend: LocalBackend;
let server: OpenAiServer;
let key = '';

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-openai-bounds-'));
  const chatFile = path.join(dir, 'tiny-chat.gguf');
  await writeTinyGguf(chatFile, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  engine = new LocalEngine({
    modelPath: chatFile,
    runtime: { gpu: false, threads: 2 },
    contextSize: 1024,
    maxConversations: 2,
    idleTimeoutMs: 0,
  });
  backend = new LocalBackend({ engine, slots: 1, threads: 2 });
  await backend.load();
  key = generateApiKey();
  server = await startOpenAiServer({ backend, port: 0, apiKey: key });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.close();
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

interface Answer {
  status: number;
  error?: { message: string; type: string; param: string | null; code: string };
}

async function send(pathName: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${server.baseUrl}${pathName}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
  });
  const json = (await response.json()) as { error?: Answer['error'] };
  return { status: response.status, ...(json.error ? { error: json.error } : {}) };
}

const hundredK = { type: 'string', enum: Array.from({ length: 100_000 }, (_, i) => `v${i}`) };
/** As JSON text: JSON.stringify itself runs out of stack on it. */
const nested = (depth: number): string =>
  `${'{"type":"array","items":'.repeat(depth)}{"type":"string"}${'}'.repeat(depth)}`;
const chat = (extra: Record<string, unknown>) => ({
  model: 'tiny-chat',
  max_tokens: 4,
  messages: [{ role: 'user', content: 'hi' }],
  ...extra,
});
const schemaFormat = (schema: unknown) => ({
  response_format: { type: 'json_schema', json_schema: { name: 'r', schema } },
});
const tool = (name: string, parameters: unknown) => ({
  type: 'function',
  function: { name, parameters },
});

describe('chat completions', () => {
  it('a json_schema enum of 100k strings is a 400 naming response_format', async () => {
    const answer = await send('/chat/completions', chat(schemaFormat(hundredK)));
    expect(answer).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', param: 'response_format' },
    });
    expect(answer.error?.message).toContain(`more than ${SCHEMA_BOUNDS.enumValues} enum values`);
    // The endpoint is free: the next request is served.
    expect((await send('/chat/completions', chat({}))).status).toBe(200);
  }, 60_000);

  it('a schema nested 100k deep is a 400, not a stack overflow', async () => {
    const body = JSON.stringify(chat(schemaFormat('NESTED'))).replace('"NESTED"', nested(100_000));
    const answer = await send('/chat/completions', body);
    expect(answer).toMatchObject({ status: 400, error: { param: 'response_format' } });
    expect(answer.error?.message).toContain(`deeper than ${SCHEMA_BOUNDS.depth} levels`);
  }, 60_000);

  it('a schema past the size bound is a 400', async () => {
    const wide = {
      type: 'object',
      properties: Object.fromEntries(
        Array.from({ length: 4000 }, (_, i) => [`property_${i}`, { type: 'string' }]),
      ),
    };
    const answer = await send('/chat/completions', chat(schemaFormat(wide)));
    expect(answer).toMatchObject({ status: 400, error: { param: 'response_format' } });
    expect(answer.error?.message).toContain(`the ${SCHEMA_BOUNDS.bytes} a grammar is built from`);
  }, 60_000);

  it("a tool whose parameters hold a 100k enum is a 400 naming that tool's parameters", async () => {
    const answer = await send(
      '/chat/completions',
      chat({
        tools: [
          tool('fine', { type: 'object' }),
          tool('huge', { type: 'object', properties: { x: hundredK } }),
        ],
      }),
    );
    expect(answer).toMatchObject({
      status: 400,
      error: { param: 'tools.1.function.parameters' },
    });
    expect(answer.error?.message).toMatch(/^huge: /);
  }, 60_000);

  it('more than 128 tools is a 400 naming tools', async () => {
    const tools = Array.from({ length: 129 }, (_, i) => tool(`t${i}`, { type: 'object' }));
    expect(await send('/chat/completions', chat({ tools }))).toMatchObject({
      status: 400,
      error: { param: 'tools' },
    });
  }, 60_000);
});

describe('the Responses API', () => {
  it('a text.format json_schema enum of 100k strings is a 400 naming text.format', async () => {
    const answer = await send('/responses', {
      model: 'tiny-chat',
      input: 'hi',
      max_output_tokens: 4,
      text: { format: { type: 'json_schema', name: 'r', schema: hundredK } },
    });
    expect(answer).toMatchObject({ status: 400, error: { param: 'text.format' } });
  }, 60_000);
});

describe('request targets', () => {
  it('/v1/models/%E0%A4%A is a 400, a target that is no URL path a 404', async () => {
    expect(await send('/models/%E0%A4%A')).toMatchObject({
      status: 400,
      error: { type: 'invalid_request_error', param: 'model' },
    });
    const origin = server.baseUrl.replace(/\/v1$/, '');
    for (const target of ['//', '///', '//%zz']) {
      // fetch normalises these; a raw request sends them as written.
      const status = await new Promise<number>((resolve, reject) => {
        const url = new URL(origin);
        import('node:http').then(({ request }) => {
          const sent = request({
            host: url.hostname,
            port: url.port,
            path: target,
            headers: { authorization: `Bearer ${key}` },
          });
          sent.on('response', (response) => {
            response.resume();
            resolve(response.statusCode ?? 0);
          });
          sent.on('error', reject);
          sent.end();
        }, reject);
      });
      expect(status, target).toBe(404);
    }
  });
});

describe('the engine', () => {
  const schemaNo = (i: number) => ({
    type: 'object',
    properties: { [`k${i}`]: { type: 'boolean' } },
    required: [`k${i}`],
    additionalProperties: false,
  });

  it(`keeps at most ${GRAMMAR_CACHE_SIZE} compiled grammars`, async () => {
    for (let i = 0; i < GRAMMAR_CACHE_SIZE + 8; i++) {
      await engine.generate('cache', {
        messages: [{ role: 'user', text: 'json' }],
        jsonSchema: schemaNo(i),
        maxTokens: 1,
      });
      expect(engine.cachedGrammars).toBeLessThanOrEqual(GRAMMAR_CACHE_SIZE);
    }
    expect(engine.cachedGrammars).toBe(GRAMMAR_CACHE_SIZE);
  }, 180_000);

  it('builds no grammar for a request cancelled before its turn', async () => {
    const before = engine.cachedGrammars;
    const result = await engine.generate('cancelled', {
      messages: [{ role: 'user', text: 'json' }],
      jsonSchema: schemaNo(10_000),
      maxTokens: 8,
      signal: AbortSignal.abort(),
    });
    expect(result.stopReason).toBe('cancelled');
    expect(engine.cachedGrammars).toBe(before);
  }, 60_000);

  it('refuses an unbounded schema itself, whoever calls it', async () => {
    await expect(
      engine.generate('bounds', {
        messages: [{ role: 'user', text: 'json' }],
        jsonSchema: { type: 'object', properties: { x: hundredK } },
      }),
    ).rejects.toMatchObject({ code: 'invalid_request' });
  });
});
