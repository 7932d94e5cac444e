/**
 * The model picker through the real contract handlers: providers added from the app (a real
 * OpenAI-compatible, Anthropic and Gemini wire server on 127.0.0.1), their models in the picker,
 * a switch per conversation and back, and the key kept by name only.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import type { ChannelName, RequestOf, ResponseOf } from '../../../src/shared/ipc.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { openaiFrames } from '../../fixtures/vendor-streams.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

const KEY = 'sk-local-test-7f3a9c';

let fixture: AssistantFixture;
let handlers: IpcHandlers;
let server: VendorServer;

async function call<C extends ChannelName>(channel: C, request: RequestOf<C>) {
  const result = await dispatch(handlers, channel, request);
  if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
  return result.value as ResponseOf<C>;
}
async function fails(channel: ChannelName, request: unknown) {
  const result = await dispatch(handlers, channel, request);
  if (result.ok) throw new Error(`${channel} succeeded`);
  return result.error;
}
/** Sends and waits for the run to end; returns the session and the reply's text. */
async function exchange(text: string, sessionId?: string) {
  const started = await call('chat.send', sessionId ? { sessionId, text } : { text });
  await fixture.assistant.finished(started.runId);
  const history = fixture.assistant.history(started.sessionId);
  const reply = history.messages.at(-1)?.blocks.find((b) => b.type === 'text');
  return { sessionId: started.sessionId, reply: reply?.type === 'text' ? reply.text : '' };
}
const modelList = {
  kind: 'json' as const,
  body: { data: [{ id: 'qwen2.5:7b' }, { id: 'llama3' }] },
};

beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
  server = await startVendorServer();
});
afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

describe('Add provider', () => {
  it('test connection lists the server models with the key in its header only', async () => {
    server.reply(modelList);
    const tested = await call('providers.test', {
      kind: 'openai-compatible',
      endpoint: server.url,
      key: KEY,
    });
    expect(tested.models).toEqual(['llama3', 'qwen2.5:7b']);
    const asked = server.requests.at(-1);
    expect(asked).toMatchObject({ method: 'GET', path: '/models' });
    expect(asked?.headers.authorization).toBe(`Bearer ${KEY}`);
    // Testing saves nothing.
    expect((await call('providers.list', {})).connections).toEqual([]);
  });

  it('a refused key is said, scrubbed of the key, and nothing is saved', async () => {
    server.reply({
      kind: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}` } },
    });
    const error = await fails('providers.add', {
      name: 'ollama',
      kind: 'openai-compatible',
      endpoint: server.url,
      key: KEY,
    });
    expect(error.message).toContain('HTTP 401');
    expect(error.message).not.toContain(KEY);
    expect((await call('providers.list', {})).connections).toEqual([]);
    expect((await call('secrets.list', {})).names).toEqual([]);
  });

  it('adds a provider: the key goes into the secret store by name and never comes back', async () => {
    server.reply(modelList);
    const added = await call('providers.add', {
      name: 'ollama',
      kind: 'openai-compatible',
      endpoint: server.url,
      key: KEY,
    });
    expect(added).toEqual({
      name: 'ollama',
      kind: 'openai-compatible',
      endpoint: server.url,
      keyName: 'pincer.provider.ollama',
      models: ['llama3', 'qwen2.5:7b'],
      // An OpenAI-compatible server takes no images unless the person says so.
      takesImages: false,
    });
    const listed = await call('providers.list', {});
    expect(listed.connections).toEqual([added]);
    expect((await call('secrets.list', {})).names.map((n) => n.name)).toEqual([
      'pincer.provider.ollama',
    ]);
    const state = await call('models.list', {});
    expect(JSON.stringify([listed, state])).not.toContain(KEY);
    expect(state.options.map((o) => o.id)).toEqual([
      'connection:ollama:llama3',
      'connection:ollama:qwen2.5:7b',
      'launch',
    ]);
    expect(state.selectedId).toBe('launch');
  });

  it('a saved key is sent only to the address it was saved with', async () => {
    const before = server.requests.length;
    const error = await fails('providers.test', {
      kind: 'openai-compatible',
      name: 'ollama',
      endpoint: 'http://127.0.0.1:9/v1',
    });
    expect(error).toMatchObject({ code: 'invalid_request' });
    expect(error.message).toContain('only sent to the address it was saved with');
    server.reply(modelList);
    expect(
      (await call('providers.test', { kind: 'openai-compatible', name: 'ollama' })).models,
    ).toHaveLength(2);
    expect(server.requests.slice(before).map((r) => r.headers.authorization)).toEqual([
      `Bearer ${KEY}`,
    ]);
  });

  it('lists Anthropic and Gemini models with their own headers and shapes', async () => {
    server.reply(
      { kind: 'json', body: { data: [{ id: 'claude-sonnet-4-5', type: 'model' }] } },
      {
        kind: 'json',
        body: {
          models: [
            { name: 'models/gemini-2.5-flash', supportedGenerationMethods: ['generateContent'] },
            { name: 'models/text-embedding-004', supportedGenerationMethods: ['embedContent'] },
          ],
        },
      },
    );
    const anthropic = await call('providers.test', {
      kind: 'anthropic',
      endpoint: server.url,
      key: KEY,
    });
    const anthropicAsked = server.requests.at(-1);
    const gemini = await call('providers.test', { kind: 'gemini', endpoint: server.url, key: KEY });
    const geminiAsked = server.requests.at(-1);
    expect(anthropic.models).toEqual(['claude-sonnet-4-5']);
    expect(anthropicAsked?.headers).toMatchObject({
      'x-api-key': KEY,
      'anthropic-version': '2023-06-01',
    });
    expect(gemini.models).toEqual(['gemini-2.5-flash']);
    expect(geminiAsked?.headers['x-goog-api-key']).toBe(KEY);
    expect(geminiAsked?.headers.authorization).toBeUndefined();
  });
});

describe('choosing a model', () => {
  it('switches mid-conversation, remembers the choice per conversation, and switches back', async () => {
    const first = await exchange('hello');
    expect(first.reply).toContain('Hello from **Pincer**');
    expect(fixture.assistant.listSessions().find((s) => s.id === first.sessionId)?.modelId).toBe(
      'launch',
    );
    // The window the launch model declares (the scripted one: 8192).
    expect((await call('models.list', {})).contextWindow).toBe(8192);

    // The picker, in this conversation: the added provider's model answers the next message.
    const picked = await call('models.select', {
      id: 'connection:ollama:qwen2.5:7b',
      sessionId: first.sessionId,
    });
    expect(picked).toMatchObject({
      active: 'openai-compatible/qwen2.5:7b',
      selectedId: 'connection:ollama:qwen2.5:7b',
      defaultId: 'connection:ollama:qwen2.5:7b',
      // A server's model the catalog does not know: its window is not guessed.
      contextWindow: null,
    });
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['from ', 'the server'] }) });
    const second = await exchange('and now?', first.sessionId);
    expect(second.reply).toBe('from the server');
    const request = server.requests.at(-1);
    expect(request).toMatchObject({ method: 'POST', path: '/chat/completions' });
    expect(request?.headers.authorization).toBe(`Bearer ${KEY}`);
    const body = request?.body as { model: string; messages: Array<{ content: unknown }> };
    expect(body.model).toBe('qwen2.5:7b');
    // The conversation so far went with it.
    expect(JSON.stringify(body.messages)).toContain('hello');

    // Back to the launch model for a new conversation; the first keeps its own.
    await call('models.select', { id: 'launch' });
    const other = await exchange('hello again');
    expect(other.reply).toContain('Hello from **Pincer**');
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['still the server'] }) });
    expect((await exchange('one more', first.sessionId)).reply).toBe('still the server');
    expect((await call('models.list', {})).selectedId).toBe('connection:ollama:qwen2.5:7b');
    const sessions = await call('sessions.list', {});
    expect(sessions.find((s) => s.id === first.sessionId)?.modelId).toBe(
      'connection:ollama:qwen2.5:7b',
    );
    expect(sessions.find((s) => s.id === other.sessionId)?.modelId).toBe('launch');
  });

  it('refuses an option that does not exist, leaving the model in force', async () => {
    const before = await call('models.list', {});
    const error = await fails('models.select', { id: 'connection:nobody:x' });
    expect(error.message).toContain('"connection:nobody:x" is not installed or configured');
    expect((await call('models.list', {})).active).toBe(before.active);
  });

  it('removing a provider deletes its key and takes its models out of the picker', async () => {
    await call('models.select', { id: 'launch' });
    await call('providers.remove', { name: 'ollama' });
    expect((await call('providers.list', {})).connections).toEqual([]);
    expect((await call('secrets.list', {})).names).toEqual([]);
    expect((await call('models.list', {})).options.map((o) => o.id)).toEqual(['launch']);
    expect(await fails('providers.remove', { name: 'ollama' })).toMatchObject({
      code: 'not_found',
    });
  });
});
