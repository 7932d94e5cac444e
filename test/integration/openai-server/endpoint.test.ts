/**
 * The OpenAI-compatible endpoint on the generated tiny model, driven by the official `openai`
 * client (and raw HTTP for what a client library would not send). Random weights: the text is
 * gibberish, but tool calls and JSON come out of the grammar and must always parse and validate.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
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
  type RequestLogEntry,
  startOpenAiServer,
} from '../../../src/main/core/openai-server/index.js';
import { OpenAiServerError } from '../../../src/main/core/openai-server/server.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';

/** Generations per "always" property; PINCER_OPENAI_GENERATIONS raises it. */
const GENERATIONS = Number(process.env.PINCER_OPENAI_GENERATIONS ?? 8);
const MAX_BODY = 64 * 1024;

let dir = '';
let engine: LocalEngine;
let backend: LocalBackend;
let server: OpenAiServer;
let client: OpenAI;
let key = '';
const log: RequestLogEntry[] = [];
const ajv = new Ajv({ strict: false });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-openai-'));
  const chatFile = path.join(dir, 'tiny-chat.gguf');
  const embedFile = path.join(dir, 'tiny-embed.gguf');
  await writeTinyGguf(chatFile, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  await writeTinyGguf(embedFile, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  engine = new LocalEngine({
    modelPath: chatFile,
    runtime: { gpu: false, threads: 2 },
    contextSize: 1024,
    maxConversations: 3,
    idleTimeoutMs: 0,
  });
  backend = new LocalBackend({ engine, slots: 2, embeddingModelPath: embedFile, threads: 2 });
  await backend.load();
  key = generateApiKey();
  server = await startOpenAiServer({
    backend,
    port: 0,
    apiKey: key,
    maxWaiting: 1,
    maxBodyBytes: MAX_BODY,
    onLog: (entry) => log.push(entry),
  });
  client = new OpenAI({ baseURL: server.baseUrl, apiKey: key, maxRetries: 0, timeout: 60_000 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.close();
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const CHAT = 'tiny-chat';
const EMBED = 'tiny-embed';
const hello = [{ role: 'user' as const, content: 'Hello' }];

interface RawError {
  error?: { code: string; type: string; param: string | null };
}

/** A raw request; resolves with status and parsed JSON body. */
async function raw(
  pathName: string,
  init: { method?: string; body?: string; auth?: string | null } = {},
): Promise<{ status: number; json: RawError }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.auth !== null) headers.authorization = init.auth ?? `Bearer ${key}`;
  const response = await fetch(`${server.baseUrl}${pathName}`, {
    method: init.method ?? 'POST',
    headers,
    body: init.body,
  });
  return { status: response.status, json: (await response.json()) as RawError };
}

/** Starts a streaming chat over plain http and resolves once its first event arrived. */
function openStream(
  maxTokens: number,
): Promise<{ request: http.ClientRequest; done: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const url = new URL(`${server.baseUrl}/chat/completions`);
    const request = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    });
    request.on('error', () => undefined);
    request.on('response', (response) => {
      const done = new Promise<void>((end) => response.on('close', end));
      response.once('data', () => resolve({ request, done }));
      response.on('error', () => undefined);
    });
    request.on('error', reject);
    request.end(
      JSON.stringify({
        model: CHAT,
        stream: true,
        max_tokens: maxTokens,
        messages: [{ role: 'user', content: 'Tell me everything' }],
      }),
    );
  });
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('GET /v1/models', () => {
  it('lists the chat model with its context size and the embedding model', async () => {
    const models = [];
    for await (const model of client.models.list()) models.push(model);
    expect(models.map((m) => m.id)).toEqual([CHAT, EMBED]);
    const chat = models[0] as unknown as { context_length: number; owned_by: string };
    expect(chat.context_length).toBeGreaterThanOrEqual(512);
    expect(chat.owned_by).toBe('pincer');
    expect((await client.models.retrieve(CHAT)).id).toBe(CHAT);
  });
});

describe('POST /v1/chat/completions', () => {
  it('answers with a chat.completion carrying usage', async () => {
    const completion = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'system', content: 'Be brief.' }, ...hello],
      max_tokens: 8,
      seed: 1,
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.id).toMatch(/^chatcmpl-/);
    const [choice] = completion.choices;
    expect(choice?.message.role).toBe('assistant');
    expect(typeof choice?.message.content).toBe('string');
    expect(choice?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(8);
    expect(completion.usage?.prompt_tokens).toBeGreaterThan(3);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  it('streams chunks in the OpenAI shape, with a final usage chunk when asked', async () => {
    const stream = await client.chat.completions.create({
      model: CHAT,
      messages: hello,
      max_completion_tokens: 8,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === CHAT)).toBe(
      true,
    );
    expect(chunks[0]?.choices[0]?.delta.role).toBe('assistant');
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text.length).toBeGreaterThan(0);
    // One finish reason, on the last choice chunk: `length` at exactly the limit, or `stop`
    // before it when the random-weights model happens to end its turn.
    const finishes = chunks.flatMap((c) => c.choices.map((choice) => choice.finish_reason));
    const reasons = finishes.filter(Boolean);
    expect(reasons).toHaveLength(1);
    expect(['length', 'stop']).toContain(reasons[0]);
    const last = chunks.at(-1);
    expect(last?.choices).toEqual([]);
    if (reasons[0] === 'length') expect(last?.usage?.completion_tokens).toBe(8);
    else expect(last?.usage?.completion_tokens).toBeLessThanOrEqual(8);
    expect(last?.usage?.prompt_tokens_details?.cached_tokens).toBeGreaterThanOrEqual(0);
  });

  it('reuses the KV cache when a client resends the history with a new turn', async () => {
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'system', content: 'You remember everything we said in this long conversation.' },
      { role: 'user', content: 'First question about the plan' },
    ];
    const first = await client.chat.completions.create({ model: CHAT, messages, max_tokens: 6 });
    messages.push({ role: 'assistant', content: first.choices[0]?.message.content ?? '' });
    messages.push({ role: 'user', content: 'And the second?' });
    const second = await client.chat.completions.create({ model: CHAT, messages, max_tokens: 6 });
    const cached = second.usage?.prompt_tokens_details?.cached_tokens ?? 0;
    const evaluated = (second.usage?.prompt_tokens ?? 0) - cached;
    // The history grew, yet fewer tokens were evaluated than the whole first prompt: all up to
    // the first reply came from the cache (the reply itself is re-rendered without the empty
    // <think> block the chat wrapper puts in front of the turn being generated).
    expect(cached).toBeGreaterThan(0);
    expect(evaluated).toBeLessThan(first.usage?.prompt_tokens ?? 0);
  });

  // Short names and bounded strings: every forced character is a model evaluation on CPU.
  const weather = {
    type: 'object',
    properties: { c: { type: 'string', maxLength: 4 }, u: { enum: ['c', 'f'] } },
    required: ['c', 'u'],
    additionalProperties: false,
  };
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'wx', description: 'Weather', parameters: weather } },
    {
      type: 'function',
      function: {
        name: 'alarm',
        parameters: {
          type: 'object',
          properties: { on: { type: 'boolean' } },
          required: ['on'],
          additionalProperties: false,
        },
      },
    },
  ];
  const validators = Object.fromEntries(
    tools.map((t) => [
      t.type === 'function' ? t.function.name : '',
      ajv.compile(t.type === 'function' ? (t.function.parameters ?? {}) : {}),
    ]),
  );

  it(`with tool_choice required always produces a schema-valid call (${GENERATIONS} generations)`, async () => {
    for (let i = 0; i < GENERATIONS; i++) {
      const completion = await client.chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: `Request ${i}` }],
        tools,
        tool_choice: 'required',
        max_tokens: 96,
        temperature: 1,
        seed: i,
      });
      const choice = completion.choices[0];
      expect(choice?.finish_reason).toBe('tool_calls');
      const call = choice?.message.tool_calls?.[0];
      expect(call?.type).toBe('function');
      if (call?.type !== 'function') continue;
      const validate = validators[call.function.name];
      expect(validate, `unknown tool ${call.function.name}`).toBeDefined();
      const args: unknown = JSON.parse(call.function.arguments);
      expect(validate?.(args), JSON.stringify(validate?.errors)).toBe(true);
    }
  }, 180_000);

  it('with a named tool_choice calls exactly that tool, also when streaming', async () => {
    const stream = await client.chat.completions.create({
      model: CHAT,
      messages: hello,
      tools,
      tool_choice: { type: 'function', function: { name: 'alarm' } },
      max_tokens: 96,
      stream: true,
    });
    const calls = [];
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      calls.push(...(chunk.choices[0]?.delta.tool_calls ?? []));
      finish ??= chunk.choices[0]?.finish_reason;
    }
    expect(finish).toBe('tool_calls');
    expect(calls).toHaveLength(1);
    expect(calls[0]?.function?.name).toBe('alarm');
    expect(validators.alarm?.(JSON.parse(calls[0]?.function?.arguments ?? ''))).toBe(true);
  }, 180_000);

  it('accepts a tool result turn and answers with tool_choice none as text', async () => {
    const completion = await client.chat.completions.create({
      model: CHAT,
      messages: [
        ...hello,
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            {
              id: 'call_1',
              type: 'function',
              function: {
                name: 'get_weather',
                arguments: '{"city":"Oslo","unit":"celsius","days":1}',
              },
            },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":3}' },
      ],
      tools,
      tool_choice: 'none',
      max_tokens: 6,
    });
    expect(completion.choices[0]?.message.tool_calls).toBeUndefined();
    expect(typeof completion.choices[0]?.message.content).toBe('string');
    // Unseeded sampling on random weights: the reply may end before its 6 tokens (CI saw it).
    expect(['length', 'stop']).toContain(completion.choices[0]?.finish_reason);
  });

  it(`with response_format json_schema (strict) always returns parseable, valid JSON (${GENERATIONS} generations)`, async () => {
    const schema = {
      type: 'object',
      properties: {
        a: { type: 'string', maxLength: 4 },
        ok: { type: 'boolean' },
        t: { type: 'array', items: { enum: ['x', 'y'] }, maxItems: 2 },
      },
      required: ['a', 'ok', 't'],
      additionalProperties: false,
    };
    const validate = ajv.compile(schema);
    for (let i = 0; i < GENERATIONS; i++) {
      const completion = await client.chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: `Give JSON ${i}` }],
        response_format: {
          type: 'json_schema',
          json_schema: { name: 'reply', schema, strict: true },
        },
        max_tokens: 64,
        seed: i,
      });
      const content = completion.choices[0]?.message.content ?? '';
      expect(completion.choices[0]?.finish_reason).toBe('stop');
      const parsed: unknown = JSON.parse(content);
      expect(validate(parsed), `${content}: ${JSON.stringify(validate.errors)}`).toBe(true);
    }
  }, 180_000);

  it('with response_format json_object returns a JSON object', async () => {
    const completion = await client.chat.completions.create({
      model: CHAT,
      messages: [{ role: 'user', content: 'JSON please' }],
      response_format: { type: 'json_object' },
      max_tokens: 24,
    });
    const content = completion.choices[0]?.message.content ?? '';
    if (completion.choices[0]?.finish_reason === 'length') {
      // An open object may run past the budget: then it is a cut-off prefix of an object.
      expect(content.trimStart().startsWith('{')).toBe(true);
    } else {
      expect(typeof JSON.parse(content)).toBe('object');
    }
  });

  it('ends the reply before a stop string, which it never contains', async () => {
    const ask = { model: CHAT, messages: hello, max_tokens: 24, temperature: 0 } as const;
    const free = (await client.chat.completions.create(ask)).choices[0]?.message.content ?? '';
    // Random weights: take the stop string from what the model says greedily, so it is met.
    const start = Math.min(4, Math.floor(free.length / 2));
    const stop = free.slice(start, start + 3);
    expect(stop.length, `too short a greedy reply: ${JSON.stringify(free)}`).toBeGreaterThan(0);
    const stopped = await client.chat.completions.create({ ...ask, stop: [stop] });
    const choice = stopped.choices[0];
    expect(choice?.message.content).not.toContain(stop);
    expect(choice?.finish_reason).toBe('stop');
    expect(choice?.message.content).toBe(free.slice(0, free.indexOf(stop)));
    // Streamed, the stop string is held back too: no chunk leaks part of it.
    const stream = await client.chat.completions.create({ ...ask, stop, stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe(choice?.message.content);
  });

  it('repeats the same sampled text for the same seed, and accepts top_p', async () => {
    const ask = {
      model: CHAT,
      messages: [{ role: 'user' as const, content: 'Say something random' }],
      max_tokens: 12,
      temperature: 1.2,
      top_p: 0.9,
    };
    const texts = [];
    for (const seed of [7, 7]) {
      const completion = await client.chat.completions.create({ ...ask, seed });
      expect(completion.usage?.completion_tokens).toBeGreaterThan(0);
      texts.push(completion.choices[0]?.message.content);
    }
    expect(texts[1]).toBe(texts[0]);
    const narrow = await client.chat.completions.create({ ...ask, seed: 3, top_p: 0.01 });
    expect(narrow.choices[0]?.finish_reason).toMatch(/^(stop|length)$/);
  });

  it(`with tool_choice auto gives text or a schema-valid call (${GENERATIONS} generations)`, async () => {
    for (let i = 0; i < GENERATIONS; i++) {
      const completion = await client.chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: `Maybe call a tool ${i}` }],
        tools,
        tool_choice: 'auto',
        max_tokens: 96,
        temperature: 1,
        seed: i,
      });
      const choice = completion.choices[0];
      const calls = choice?.message.tool_calls ?? [];
      if (choice?.finish_reason === 'tool_calls') {
        expect(calls.length).toBeGreaterThan(0);
        for (const call of calls) {
          if (call.type !== 'function') throw new Error(`unexpected call type ${call.type}`);
          const validate = validators[call.function.name];
          expect(validate, `unknown tool ${call.function.name}`).toBeDefined();
          const args: unknown = JSON.parse(call.function.arguments);
          expect(validate?.(args), JSON.stringify(validate?.errors)).toBe(true);
        }
      } else {
        expect(calls).toEqual([]);
        expect(choice?.finish_reason).toMatch(/^(stop|length)$/);
        expect(typeof choice?.message.content).toBe('string');
      }
    }
  }, 180_000);

  it('serves two concurrent clients, one after the other in the model lane', async () => {
    const other = new OpenAI({ baseURL: server.baseUrl, apiKey: key, maxRetries: 0 });
    const [a, b] = await Promise.all([
      client.chat.completions.create({ model: CHAT, messages: hello, max_tokens: 6 }),
      other.chat.completions.create({
        model: CHAT,
        messages: [{ role: 'user', content: 'Another client' }],
        max_tokens: 6,
      }),
    ]);
    // The random model may end a reply early (its end token is as likely as any other): the
    // count is the limit when the limit ended it, and never more.
    for (const reply of [a, b]) {
      const tokens = reply.usage?.completion_tokens ?? 0;
      const finish = reply.choices[0]?.finish_reason;
      expect(tokens).toBeGreaterThan(0);
      if (finish === 'length') expect(tokens).toBe(6);
      else {
        expect(finish).toBe('stop');
        expect(tokens).toBeLessThanOrEqual(6);
      }
    }
    expect(a.id).not.toBe(b.id);
  });
});

describe('errors in the OpenAI shape', () => {
  it('404 for a model that is not served', async () => {
    const error = await client.chat.completions
      .create({ model: 'gpt-4o', messages: hello })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.NotFoundError);
    expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
  });

  it('400 naming the parameter for bad params', async () => {
    const cases: [object, string | null][] = [
      [{ model: CHAT, messages: hello, n: 2 }, 'n'],
      [{ model: CHAT, messages: hello, temperature: 5 }, 'temperature'],
      [{ model: CHAT, messages: [] }, 'messages'],
      [{ model: CHAT, messages: hello, tool_choice: 'required' }, 'tool_choice'],
      [
        {
          model: CHAT,
          messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] }],
        },
        'messages.0.content',
      ],
    ];
    for (const [body, param] of cases) {
      const error = await client.chat.completions.create(body as never).catch((e: unknown) => e);
      expect(error, JSON.stringify(body)).toBeInstanceOf(OpenAI.BadRequestError);
      expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe(param);
    }
    const broken = await raw('/chat/completions', { body: '{"model": ' });
    expect(broken.status).toBe(400);
    expect(broken.json.error?.code).toBe('invalid_json');
    // A tool result for a call no assistant made: the engine refuses it, before any output.
    const orphan = await raw('/chat/completions', {
      body: JSON.stringify({
        model: CHAT,
        stream: true,
        messages: [...hello, { role: 'tool', tool_call_id: 'nope', content: 'x' }],
      }),
    });
    expect(orphan.status).toBe(400);
    expect(orphan.json.error?.type).toBe('invalid_request_error');
  });

  it('401 for a missing or wrong key, 404 for an unknown path, 413 for a huge body', async () => {
    const wrong = new OpenAI({ baseURL: server.baseUrl, apiKey: `${key}x`, maxRetries: 0 });
    await expect(wrong.models.list()).rejects.toBeInstanceOf(OpenAI.AuthenticationError);
    const missing = await raw('/models', { method: 'GET', auth: null });
    expect(missing.status).toBe(401);
    expect(missing.json.error?.code).toBe('invalid_api_key');
    expect((await raw('/nothing', { method: 'GET' })).status).toBe(404);
    const huge = await raw('/chat/completions', {
      body: JSON.stringify({
        model: CHAT,
        messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY) }],
      }),
    });
    expect(huge.status).toBe(413);
  });

  it('refuses to bind a non-loopback address without a key', async () => {
    const error = await startOpenAiServer({ backend, host: '0.0.0.0', port: 0 }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(OpenAiServerError);
    expect((error as OpenAiServerError).code).toBe('key_required');
  });
});

describe('queueing and cancellation', () => {
  it('a client that disconnects cancels its generation and frees the lane', async () => {
    const before = log.length;
    const { request, done } = await openStream(500);
    request.destroy();
    await done;
    await until(() => log.length > before);
    const entry = log.at(-1);
    expect(entry?.outcome).toBe('cancelled');
    expect(entry?.completionTokens ?? 0).toBeLessThan(500);
    // The lane is free again: the next request runs at once instead of waiting behind 500 tokens.
    const next = await client.chat.completions.create({
      model: CHAT,
      messages: hello,
      max_tokens: 2,
    });
    expect(next.usage?.completion_tokens).toBe(2);
  });

  it('answers 429 when the queue of the model is full', async () => {
    const { request, done } = await openStream(500);
    const waiting = client.chat.completions.create({ model: CHAT, messages: hello, max_tokens: 2 });
    await until(() => server.stats()[CHAT]?.waiting === 1);
    const error = await client.chat.completions
      .create({ model: CHAT, messages: hello, max_tokens: 2 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    request.destroy();
    await done;
    expect((await waiting).usage?.completion_tokens).toBe(2);
  });
});

describe('POST /v1/completions, /v1/embeddings and /v1/responses', () => {
  it('completes raw text, whole and streamed', async () => {
    const completion = await client.completions.create({
      model: CHAT,
      prompt: 'Once upon',
      max_tokens: 6,
    });
    expect(completion.object).toBe('text_completion');
    // The random-weights model may stop before the limit: `stop` then, else `length` at exactly 6.
    const finish = completion.choices[0]?.finish_reason;
    expect(['length', 'stop']).toContain(finish);
    if (finish === 'length') expect(completion.usage?.completion_tokens).toBe(6);
    else expect(completion.usage?.completion_tokens).toBeLessThanOrEqual(6);
    const stream = await client.completions.create({
      model: CHAT,
      prompt: 'Once upon',
      max_tokens: 6,
      stream: true,
    });
    let text = '';
    let streamedFinish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.text ?? '';
      streamedFinish = chunk.choices[0]?.finish_reason ?? streamedFinish;
    }
    expect(['length', 'stop']).toContain(streamedFinish);
    if (streamedFinish === 'length') expect(text.length).toBeGreaterThan(0);
  });

  it('embeds with the embedding model: one vector of its width per input, base64 or floats', async () => {
    const viaClient = await client.embeddings.create({ model: EMBED, input: ['the cat', 'a dog'] });
    expect(viaClient.data).toHaveLength(2);
    expect(viaClient.data.map((d) => d.embedding.length)).toEqual([64, 64]);
    expect(viaClient.usage.prompt_tokens).toBeGreaterThan(0);
    const floats = await client.embeddings.create({
      model: EMBED,
      input: 'the cat',
      encoding_format: 'float',
    });
    expect(floats.data[0]?.embedding).toEqual(
      viaClient.data[0]?.embedding.map((v) => Math.fround(v)),
    );
    const wrongModel = await client.embeddings
      .create({ model: CHAT, input: 'x' })
      .catch((e: unknown) => e);
    expect(wrongModel).toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('answers the Responses API with a function call when a tool is required', async () => {
    const response = await client.responses.create({
      model: CHAT,
      input: 'Set an alarm',
      tools: [
        {
          type: 'function',
          name: 'alarm',
          strict: true,
          parameters: {
            type: 'object',
            properties: { on: { type: 'boolean' } },
            required: ['on'],
            additionalProperties: false,
          },
        },
      ],
      tool_choice: 'required',
      max_output_tokens: 96,
    });
    const call = response.output.find((item) => item.type === 'function_call');
    expect(call?.type).toBe('function_call');
    if (call?.type !== 'function_call') return;
    expect(call.name).toBe('alarm');
    expect(typeof (JSON.parse(call.arguments) as { on: boolean }).on).toBe('boolean');
  });

  it('ends a Responses stream that fails with an error event in its own shape', async () => {
    const response = await fetch(`${server.baseUrl}/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({
        model: CHAT,
        stream: true,
        input: [{ type: 'function_call_output', call_id: 'never-made', output: 'x' }],
      }),
    });
    const text = await response.text();
    expect(text).toMatch(/^event: response\.created\n/);
    const last = text.trim().split('\n\n').at(-1) ?? '';
    expect(last).toMatch(/^event: error\ndata: /);
    const data = JSON.parse(last.split('data: ')[1] ?? '') as { type: string; code: string };
    expect(data).toMatchObject({ type: 'error', code: 'invalid_value' });
  });

  it('streams Responses API events that add up to the output text', async () => {
    const stream = await client.responses.create({
      model: CHAT,
      instructions: 'Be brief.',
      input: [{ role: 'user', content: 'Hello' }],
      max_output_tokens: 8,
      stream: true,
    });
    const types: string[] = [];
    let deltas = '';
    let final: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') deltas += event.delta;
      if (event.type === 'response.completed' || event.type === 'response.incomplete')
        final = event.response;
    }
    expect(types[0]).toBe('response.created');
    expect(types).toContain('response.output_text.done');
    // The random-weights model may end its reply before the token limit: then the response is
    // completed, else incomplete at exactly the limit.
    const last = types.at(-1);
    expect(['response.completed', 'response.incomplete']).toContain(last);
    const message = final?.output.find((item) => item.type === 'message');
    const text = message?.type === 'message' ? message.content : [];
    expect(text).toEqual([{ type: 'output_text', text: deltas, annotations: [] }]);
    if (last === 'response.incomplete') expect(final?.usage?.output_tokens).toBe(8);
    else expect(final?.usage?.output_tokens).toBeLessThanOrEqual(8);
    expect(final?.status).toBe(last === 'response.incomplete' ? 'incomplete' : 'completed');
  });
});
