/**
 * The OpenAI-compatible endpoint as the app runs it: turned on through the assistant API, served
 * from the assistant's own local engine (the tiny generated GGUF, real node-llama-cpp), and
 * driven by the official `openai` client. The key is shown once and kept by name; the settings
 * survive a restart; the request log holds metadata only.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Assistant, createAssistant } from '../../../src/main/core/assistant/index.js';
import { ENDPOINT_KEY_NAME } from '../../../src/main/core/assistant/openai-endpoint.js';
import type { OpenAiEndpointView } from '../../../src/shared/ipc-schemas.js';
import { QWEN_TOOLS_TEMPLATE, writeTinyGguf } from '../../fixtures/tiny-gguf.js';
import { APP_DIR } from '../../support/assistant-harness.js';
import { vaultSecrets } from '../../support/secrets.js';

let dir = '';
let modelFile = '';
let assistant: Assistant;
const views: OpenAiEndpointView[] = [];

async function open(): Promise<Assistant> {
  const dataDir = path.join(dir, 'data');
  const opened = await createAssistant({
    dataDir,
    appDir: APP_DIR,
    env: {},
    model: { kind: 'local', modelPath: modelFile },
    local: { threads: 2, contextSize: 1024 },
    // No tools: their definitions would not fit the tiny model's context.
    tools: '',
    generation: { maxTokens: 8 },
    secrets: vaultSecrets(dataDir, 'endpoint-test'),
  });
  opened.subscribe((event) => {
    if (event.topic === 'openaiEndpoint.changed') views.push(event.endpoint);
  });
  return opened;
}

const clientFor = (baseURL: string, apiKey: string) =>
  new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 60_000 });

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'pincer-app-endpoint-'));
  modelFile = path.join(dir, 'tiny-chat.gguf');
  await writeTinyGguf(modelFile, { tokenizer: 'bpe', chatTemplate: QWEN_TOOLS_TEMPLATE });
  assistant = await open();
}, 60_000);

afterAll(async () => {
  await assistant?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the endpoint from the assistant API', () => {
  let key = '';
  let baseUrl = '';

  it('is off by default', () => {
    expect(assistant.openaiEndpoint.view()).toMatchObject({
      enabled: false,
      running: false,
      baseUrl: null,
      hasKey: false,
      host: '127.0.0.1',
    });
  });

  it('turns on with a new key, shown once, kept in the secret store by name', async () => {
    const first = await assistant.openaiEndpoint.configure({ enabled: true, port: 0 });
    expect(first.key).toMatch(/^pincer-[\w-]{20,}$/);
    key = first.key ?? '';
    expect(first.endpoint).toMatchObject({ enabled: true, running: true, hasKey: true });
    expect(first.endpoint.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    baseUrl = first.endpoint.baseUrl ?? '';
    expect(JSON.stringify(first.endpoint)).not.toContain(key);
    // Configuring again never shows the key again.
    const again = await assistant.openaiEndpoint.configure({ enabled: true });
    expect(again.key).toBeNull();
    baseUrl = again.endpoint.baseUrl ?? '';
    await expect
      .poll(() => assistant.openaiEndpoint.view().loading, { timeout: 30_000 })
      .toBe(false);
    const names = (await assistant.secrets()).names.map((n) => n.name);
    expect(names).toContain(ENDPOINT_KEY_NAME);
  });

  it('serves the app’s own model to the official client, and refuses a wrong key', async () => {
    const client = clientFor(baseUrl, key);
    const listed = await client.models.list();
    expect(listed.data.map((m) => m.id)).toContain('tiny-chat');
    const before = await assistant.models();
    const reply = await client.chat.completions.create({
      model: 'tiny-chat',
      messages: [{ role: 'user', content: 'secret-prompt-words' }],
      max_tokens: 8,
      temperature: 0,
    });
    expect(reply.choices[0]?.message.role).toBe('assistant');
    expect(reply.usage?.completion_tokens).toBeGreaterThan(0);
    // The request ran on the assistant's engine: the app's model state shows it loaded.
    expect(before.kind).toBe('local');
    expect((await assistant.models()).loaded).toBe(true);
    await expect(clientFor(baseUrl, 'pincer-wrong').models.list()).rejects.toMatchObject({
      status: 401,
    });
  });

  it('runs the app’s own turns and external requests side by side on the one engine', async () => {
    views.length = 0;
    const client = clientFor(baseUrl, key);
    const { runId } = assistant.send({ text: 'Hello from the app' });
    const external = Promise.all(
      [1, 2].map(() =>
        client.chat.completions.create({
          model: 'tiny-chat',
          messages: [{ role: 'user', content: 'Hello from a script' }],
          max_tokens: 8,
        }),
      ),
    );
    const [replies] = await Promise.all([external, assistant.finished(runId)]);
    expect(replies).toHaveLength(2);
    const detail = assistant.run(runId);
    expect(detail.run.outcome, JSON.stringify(detail.run)).toBe('completed');
    // The status bar saw the external requests while they were in flight, and none after.
    expect(views.some((v) => v.active + v.queued >= 1)).toBe(true);
    expect(assistant.openaiEndpoint.view()).toMatchObject({ active: 0, queued: 0 });
  }, 120_000);

  it('logs metadata only', () => {
    const log = assistant.openaiEndpoint.requestLog();
    const chat = log.find((entry) => entry.path === '/v1/chat/completions');
    expect(chat).toMatchObject({ method: 'POST', status: 200, model: 'tiny-chat', outcome: 'ok' });
    expect(chat?.completionTokens).toBeGreaterThan(0);
    expect(log.some((entry) => entry.status === 401)).toBe(true);
    const text = JSON.stringify(log);
    expect(text).not.toContain('secret-prompt-words');
    expect(text).not.toContain(key);
  });

  it('refuses an address that is not this machine’s', async () => {
    await expect(assistant.openaiEndpoint.configure({ host: '203.0.113.7' })).rejects.toThrow(
      /not an address of this machine/,
    );
    expect(assistant.openaiEndpoint.view()).toMatchObject({ running: true, host: '127.0.0.1' });
  });

  it('comes back on at the next launch with the same key', async () => {
    await assistant.close();
    assistant = await open();
    const view = assistant.openaiEndpoint.view();
    expect(view).toMatchObject({ enabled: true, running: true, hasKey: true });
    baseUrl = view.baseUrl ?? '';
    await expect
      .poll(() => assistant.openaiEndpoint.view().loading, { timeout: 30_000 })
      .toBe(false);
    const listed = await clientFor(baseUrl, key).models.list();
    expect(listed.data.map((m) => m.id)).toContain('tiny-chat');
  }, 60_000);

  it('a new key replaces the old one at once', async () => {
    const rotated = await assistant.openaiEndpoint.rotateKey();
    expect(rotated.key).not.toBe(key);
    const url = rotated.endpoint.baseUrl ?? '';
    await expect(clientFor(url, key).models.list()).rejects.toMatchObject({ status: 401 });
    expect((await clientFor(url, rotated.key).models.list()).data.length).toBeGreaterThan(0);
  });

  it('serves the model the app switches to', async () => {
    const modelsDir = path.join(dir, 'data', 'models');
    await mkdir(modelsDir, { recursive: true });
    await writeTinyGguf(path.join(modelsDir, 'tiny-two.gguf'), {
      tokenizer: 'bpe',
      chatTemplate: QWEN_TOOLS_TEMPLATE,
      seed: 5,
    });
    await assistant.selectModel('local:tiny-two.gguf');
    await expect
      .poll(() => assistant.openaiEndpoint.view(), { timeout: 30_000 })
      .toMatchObject({ running: true, loading: false, model: 'tiny-two' });
    // The key of the earlier test was replaced there; a fresh one restarts on a new free port.
    const rotated = await assistant.openaiEndpoint.rotateKey();
    baseUrl = rotated.endpoint.baseUrl ?? '';
    const client = clientFor(baseUrl, rotated.key);
    expect((await client.models.list()).data.map((m) => m.id)).toEqual(['tiny-two']);
  }, 60_000);

  it('turns off, and stays off at the next launch', async () => {
    const off = await assistant.openaiEndpoint.configure({ enabled: false });
    expect(off.endpoint).toMatchObject({ enabled: false, running: false, baseUrl: null });
    await expect(fetch(`${baseUrl}/models`)).rejects.toThrow();
    await assistant.close();
    assistant = await open();
    expect(assistant.openaiEndpoint.view()).toMatchObject({ enabled: false, running: false });
  }, 60_000);
});
