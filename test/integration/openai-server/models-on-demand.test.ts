/**
 * `pincer serve --openai`'s model list and load on demand: every installed chat GGUF is listed
 * with its context size, and a request naming one that is not in memory swaps it in (one chat
 * model at a time). Real engine and tiny generated GGUFs; the one thing held by the test is the
 * moment the swapped-in model finishes loading, so the 503 while it loads is seen without timing.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LocalEngine } from '../../../src/main/core/local/engine.js';
import { chatModelFiles, localSetup } from '../../../src/main/core/local/index.js';
import {
  LocalBackend,
  type OpenAiServer,
  type RequestLogEntry,
  startOpenAiServer,
} from '../../../src/main/core/openai-server/index.js';
import type { BackendEngine } from '../../../src/main/core/openai-server/local-backend.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';

const FIRST = 'tiny-first';
const SECOND = 'tiny-second';
const EMBED = 'tiny-embed';

let dir = '';
let engine: LocalEngine;
let backend: LocalBackend;
let server: OpenAiServer;
let client: OpenAI;
const log: RequestLogEntry[] = [];
/** While set, the backend's load of a swapped-in model waits for it. */
let loadGate: Promise<void> | undefined;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-openai-models-'));
  const { catalog } = await localSetup(APP_DIR, dir);
  const modelsDir = path.join(dir, 'models');
  await mkdir(modelsDir, { recursive: true });
  const first = path.join(modelsDir, `${FIRST}.gguf`);
  const embedFile = path.join(modelsDir, `${EMBED}.gguf`);
  await writeTinyGguf(first, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  await writeTinyGguf(path.join(modelsDir, `${SECOND}.gguf`), {
    tokenizer: 'bpe',
    chatTemplate: QWEN_TOOLS_TEMPLATE,
    contextLength: 4096,
    seed: 5,
  });
  await writeTinyGguf(embedFile, { tokenizer: 'bpe', embedding: 64, seed: 9 });
  // A file whose header fails the check is never listed, so never handed to llama.cpp.
  await writeFile(path.join(modelsDir, 'broken.gguf'), Buffer.from('GGUF\x03\x00\x00\x00junk'));
  engine = new LocalEngine({
    modelPath: first,
    runtime: { gpu: false, threads: 2 },
    contextSize: 1024,
    maxConversations: 3,
    idleTimeoutMs: 0,
  });
  const held: BackendEngine = {
    get modelPath() {
      return engine.modelPath;
    },
    get loaded() {
      return engine.loaded;
    },
    // Only a load of a model not yet in memory is held; asking a loaded one is not a load.
    load: async () => {
      if (!engine.loaded) await loadGate;
      return engine.load();
    },
    generate: (id, request) => engine.generate(id, request),
    complete: (id, request) => engine.complete(id, request),
    useModel: (file) => engine.useModel(file),
  };
  backend = new LocalBackend({
    engine: held,
    installedChatModels: () => chatModelFiles(catalog, { modelsDir }),
    embeddingModelPath: embedFile,
    threads: 2,
  });
  await backend.load();
  server = await startOpenAiServer({ backend, port: 0, onLog: (entry) => log.push(entry) });
  client = new OpenAI({ baseURL: server.baseUrl, apiKey: 'none', maxRetries: 0, timeout: 60_000 });
}, 60_000);

afterAll(async () => {
  await server?.close();
  await backend?.close();
  await engine?.dispose();
  await rm(dir, { recursive: true, force: true });
});

const hello = [{ role: 'user' as const, content: 'Hello' }];

async function listed(): Promise<Map<string, number | undefined>> {
  const out = new Map<string, number | undefined>();
  for await (const model of client.models.list()) {
    out.set(model.id, (model as unknown as { context_length?: number }).context_length);
  }
  return out;
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 10));
}

describe('GET /v1/models with several installed models', () => {
  it('lists every sound installed chat model with its context size, and the embedding model', async () => {
    const models = await listed();
    expect([...models.keys()]).toEqual([FIRST, SECOND, EMBED]);
    // The loaded model shows the context it was loaded with; the other one its header's.
    expect(models.get(FIRST)).toBe(1024);
    expect(models.get(SECOND)).toBe(4096);
    expect((await client.models.retrieve(SECOND)).id).toBe(SECOND);
  });
});

describe('loading another installed model on demand', () => {
  it('swaps in the named model, answers from it, and swaps back for the first one', async () => {
    const second = await client.chat.completions.create({
      model: SECOND,
      messages: hello,
      max_tokens: 3,
    });
    expect(second.model).toBe(SECOND);
    expect(second.usage?.completion_tokens).toBe(3);
    expect(path.basename(engine.modelPath)).toBe(`${SECOND}.gguf`);
    // Now the second one is loaded: listed with its loaded context, the first with its header's.
    const models = await listed();
    expect(models.get(SECOND)).toBe(1024);
    expect(models.get(FIRST)).toBe(2048);
    const first = await client.chat.completions.create({
      model: FIRST,
      messages: hello,
      max_tokens: 3,
    });
    expect(first.model).toBe(FIRST);
    expect(first.usage?.completion_tokens).toBe(3);
    expect(path.basename(engine.modelPath)).toBe(`${FIRST}.gguf`);
  }, 120_000);

  it('lets the running request on the current model finish before swapping', async () => {
    const before = log.length;
    const stream = await client.chat.completions.create({
      model: FIRST,
      messages: [{ role: 'user', content: 'Tell me everything' }],
      max_tokens: 40,
      // Sampled at temperature 1, a random model may draw its end token early; a seed makes the
      // draw the same every run, so a shorter answer can only mean the swap cut it short.
      seed: 11,
      stream: true,
      stream_options: { include_usage: true },
    });
    let swapped: Promise<OpenAI.ChatCompletion> | undefined;
    let completionTokens = 0;
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      // Generation on the first model is under way: now ask for the second one.
      if (!swapped) {
        swapped = client.chat.completions.create({ model: SECOND, messages: hello, max_tokens: 2 });
        swapped.catch(() => {}); // awaited below, where a failure is reported
      }
      completionTokens = chunk.usage?.completion_tokens ?? completionTokens;
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    // The running request was not cut short by the swap it was waiting for.
    expect({ finish, completionTokens }).toEqual({ finish: 'length', completionTokens: 40 });
    const short = await swapped;
    expect(short?.model).toBe(SECOND);
    expect(log.slice(before).map((entry) => entry.model)).toEqual([FIRST, SECOND]);
  }, 120_000);

  it('answers 503 with retry-after while the named model loads, then serves it', async () => {
    let open = () => {};
    loadGate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const target = engine.modelPath.endsWith(`${FIRST}.gguf`) ? SECOND : FIRST;
    const swapping = client.chat.completions.create({
      model: target,
      messages: hello,
      max_tokens: 2,
    });
    await until(() => backend.status() === 'loading');
    const response = await fetch(`${server.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: target, messages: hello, max_tokens: 2 }),
    });
    expect(response.status).toBe(503);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
    const body = (await response.json()) as { error: { code: string; type: string } };
    expect(body.error).toMatchObject({ code: 'model_loading', type: 'service_unavailable' });
    // The list still answers during the load (from the file headers) rather than waiting.
    expect((await listed()).has(target)).toBe(true);
    loadGate = undefined;
    open();
    const answered = await swapping;
    expect(answered.model).toBe(target);
    expect(answered.usage?.completion_tokens).toBe(2);
    expect(backend.status()).toBe('ready');
  }, 120_000);

  it('keeps 404 model_not_found for a name that is not installed, or whose file is unsound', async () => {
    for (const model of ['not-installed', 'broken']) {
      const error = await client.chat.completions
        .create({ model, messages: hello, max_tokens: 2 })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(OpenAI.NotFoundError);
      expect((error as InstanceType<typeof OpenAI.NotFoundError>).code).toBe('model_not_found');
    }
  });
});
