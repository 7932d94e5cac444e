/**
 * Images in a message through the real contract handlers and the real assistant: providers added
 * from the app (a real OpenAI-compatible, Anthropic and Gemini wire server on 127.0.0.1) that take
 * images receive the exact bytes as base64 in their own wire shape beside the text; a text-only
 * model is refused before any request; bad bytes, an oversize image, too many images and an
 * oversize request are refused with their limits named; the history keeps the image.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatch, type IpcHandlers } from '../../../src/main/core/ipc/dispatch.js';
import { createCoreHandlers } from '../../../src/main/core/ipc/handlers.js';
import {
  type ChannelName,
  MAX_IMAGE_BASE64,
  MAX_IMAGE_BYTES,
  MAX_IMAGES,
  MAX_SEND_REQUEST_BYTES,
  type RequestOf,
  type ResponseOf,
} from '../../../src/shared/ipc.js';
import { pngOf } from '../../fixtures/images.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { anthropicFrames, geminiFrames, openaiFrames } from '../../fixtures/vendor-streams.js';
import { type AssistantFixture, scriptedAssistant } from '../../support/assistant-harness.js';

const KEY = 'sk-images-test-0c4e';
const PNG = pngOf(3, 2, [10, 120, 250]);
const DATA = PNG.toString('base64');

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

beforeAll(async () => {
  fixture = await scriptedAssistant({ delayMs: 1 });
  handlers = createCoreHandlers({ assistant: fixture.assistant, electronVersion: null });
  server = await startVendorServer();
  server.reply(
    { kind: 'json', body: { data: [{ id: 'llava' }] } },
    { kind: 'json', body: { data: [{ id: 'qwen-text' }] } },
    { kind: 'json', body: { data: [{ id: 'claude-eyes', type: 'model' }] } },
    {
      kind: 'json',
      body: {
        models: [{ name: 'models/gemini-eyes', supportedGenerationMethods: ['generateContent'] }],
      },
    },
  );
  const base = { endpoint: server.url, key: KEY };
  await call('providers.add', {
    ...base,
    name: 'lab',
    kind: 'openai-compatible',
    takesImages: true,
  });
  await call('providers.add', { ...base, name: 'plain', kind: 'openai-compatible' });
  await call('providers.add', { ...base, name: 'claude', kind: 'anthropic' });
  await call('providers.add', { ...base, name: 'gem', kind: 'gemini' });
});
afterAll(async () => {
  await fixture?.close();
  await server?.close();
});

describe('which models take images', () => {
  it('follows each connection’s declaration; the scripted launch model takes none', async () => {
    const state = await call('models.list', {});
    expect(Object.fromEntries(state.options.map((o) => [o.id, o.takesImages]))).toEqual({
      'connection:claude:claude-eyes': true,
      'connection:gem:gemini-eyes': true,
      'connection:lab:llava': true,
      'connection:plain:qwen-text': false,
      launch: false,
    });
    const { connections } = await call('providers.list', {});
    expect(connections.map((c) => [c.name, c.takesImages])).toEqual([
      ['claude', true],
      ['gem', true],
      ['lab', true],
      ['plain', false],
    ]);
  });
});

describe('a message with an image', () => {
  const CASES: Array<{
    option: string;
    frames: string[];
    path: string;
    wire: (body: unknown) => { image: unknown; text: unknown };
  }> = [
    {
      option: 'connection:lab:llava',
      frames: openaiFrames({ text: ['a blue ', 'rectangle'] }),
      path: '/chat/completions',
      wire: (body) => {
        const user = (body as { messages: Array<{ role: string; content: unknown }> }).messages
          .filter((m) => m.role === 'user')
          .at(-1) as { content: Array<Record<string, unknown>> };
        return { image: user.content[0], text: user.content[1] };
      },
    },
    {
      option: 'connection:claude:claude-eyes',
      frames: anthropicFrames({ text: ['a blue ', 'rectangle'] }),
      path: '/messages',
      wire: (body) => {
        const user = (body as { messages: Array<{ content: unknown[] }> }).messages.at(-1);
        return { image: user?.content[0], text: user?.content[1] };
      },
    },
    {
      option: 'connection:gem:gemini-eyes',
      frames: geminiFrames({ text: ['a blue ', 'rectangle'] }),
      path: '/models/gemini-eyes:streamGenerateContent?alt=sse',
      wire: (body) => {
        const user = (body as { contents: Array<{ parts: unknown[] }> }).contents.at(-1);
        return { image: user?.parts[0], text: user?.parts[1] };
      },
    },
  ];
  const EXPECTED: Record<string, { image: unknown; text: unknown }> = {
    'connection:lab:llava': {
      image: { type: 'image_url', image_url: { url: `data:image/png;base64,${DATA}` } },
      text: { type: 'text', text: 'What is in this picture?' },
    },
    'connection:claude:claude-eyes': {
      image: { type: 'image', source: { type: 'base64', media_type: 'image/png', data: DATA } },
      text: { type: 'text', text: 'What is in this picture?' },
    },
    'connection:gem:gemini-eyes': {
      image: { inlineData: { mimeType: 'image/png', data: DATA } },
      text: { text: 'What is in this picture?' },
    },
  };

  it.each(CASES)(
    'reaches $option in its wire shape, the exact bytes beside the text',
    async ({ option, frames, path, wire }) => {
      const session = await call('sessions.create', {});
      await call('models.select', { id: option, sessionId: session.id });
      server.reply({ kind: 'sse', frames });
      const before = server.requests.length;
      const started = await call('chat.send', {
        sessionId: session.id,
        text: 'What is in this picture?',
        // Named as a JPEG: its bytes say PNG, and PNG is what is sent.
        images: [{ name: 'holiday.jpg', data: DATA }],
      });
      await fixture.assistant.finished(started.runId);
      expect(server.requests.length).toBe(before + 1);
      const request = server.requests.at(-1);
      expect(request?.method).toBe('POST');
      expect(request?.path).toBe(path);
      expect(wire(request?.body)).toEqual(EXPECTED[option]);

      // The history, read back from the store, keeps the image with the message.
      const history = await call('sessions.history', { sessionId: started.sessionId });
      const question = history.messages.find((m) => m.role === 'user');
      expect(question?.blocks).toEqual([
        { type: 'image', mediaType: 'image/png', data: DATA },
        { type: 'text', text: 'What is in this picture?' },
      ]);
      const reply = history.messages.at(-1)?.blocks.find((b) => b.type === 'text');
      expect(reply).toEqual({ type: 'text', text: 'a blue rectangle' });
    },
  );

  it('is exported as a placeholder line, never as its bytes; search skips it', async () => {
    const [session] = await call('sessions.list', {});
    const md = await call('sessions.export', { sessionId: session?.id ?? '', format: 'markdown' });
    expect(md.content).toContain(`_[image: image/png, ${(PNG.length / 1024).toFixed(1)} KiB]_`);
    const json = await call('sessions.export', { sessionId: session?.id ?? '', format: 'json' });
    expect(md.content + json.content).not.toContain(DATA.slice(0, 40));
    expect((await call('sessions.search', { query: DATA.slice(0, 12) })).hits).toEqual([]);
  });

  it('a later turn to a text-only model carries a line of text instead of the image', async () => {
    const [session] = await call('sessions.list', {});
    await call('models.select', { id: 'connection:plain:qwen-text', sessionId: session?.id });
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['ok'] }) });
    const started = await call('chat.send', { sessionId: session?.id, text: 'and in words?' });
    await fixture.assistant.finished(started.runId);
    const body = JSON.stringify(server.requests.at(-1)?.body);
    expect(body).not.toContain(DATA.slice(0, 40));
    expect(body).toContain('the model in use does not take images');
    expect(body).toContain('and in words?');
  });
});

describe('refused before any request', () => {
  it('a text-only model: the message and the session are left as they were', async () => {
    const session = await call('sessions.create', {});
    await call('models.select', { id: 'connection:plain:qwen-text', sessionId: session.id });
    const before = server.requests.length;
    const error = await fails('chat.send', {
      sessionId: session.id,
      text: 'look',
      images: [{ name: 'a.png', data: DATA }],
    });
    expect(error.code).toBe('invalid_request');
    expect(error.message).toContain(
      'the selected model (openai-compatible/qwen-text) does not take images; pick one that does',
    );
    expect(server.requests.length).toBe(before);
    expect((await call('sessions.history', { sessionId: session.id })).messages).toEqual([]);
    // The scripted launch model declares no images either.
    await call('models.select', { id: 'launch', sessionId: session.id });
    const launch = await fails('chat.send', {
      sessionId: session.id,
      text: 'look',
      images: [{ name: 'a.png', data: DATA }],
    });
    expect(launch.message).toContain('(scripted/test) does not take images');
    expect(fixture.provider.requests.filter((r) => JSON.stringify(r).includes(DATA))).toEqual([]);
  });

  it('bad magic bytes, an oversize image, too many images and an oversize request', async () => {
    const session = await call('sessions.create', {});
    await call('models.select', { id: 'connection:lab:llava', sessionId: session.id });
    const before = server.requests.length;
    const send = (images: Array<{ name: string; data: string }>) =>
      fails('chat.send', { sessionId: session.id, text: 'look', images });

    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>').toString('base64');
    expect(await send([{ name: 'cat.png', data: svg }])).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining('"cat.png" is not a PNG, JPEG, GIF or WebP image'),
    });

    // Within the contract's base64 bound, one byte over the image bound once decoded.
    const over = Buffer.concat([PNG, Buffer.alloc(MAX_IMAGE_BYTES + 1 - PNG.length)]);
    expect(over.toString('base64').length).toBeLessThanOrEqual(MAX_IMAGE_BASE64);
    expect(await send([{ name: 'big.png', data: over.toString('base64') }])).toMatchObject({
      code: 'too_large',
      message: expect.stringContaining(`an image is at most 5 MiB (${MAX_IMAGE_BYTES} bytes)`),
    });
    const beyond = `${DATA}${'A'.repeat(MAX_IMAGE_BASE64)}`;
    expect(await send([{ name: 'huge.png', data: beyond }])).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`an image is at most ${MAX_IMAGE_BYTES} bytes`),
    });

    const five = Array.from({ length: MAX_IMAGES + 1 }, (_, i) => ({
      name: `${i}.png`,
      data: DATA,
    }));
    expect(await send(five)).toMatchObject({
      code: 'invalid_request',
      message: expect.stringContaining(`at most ${MAX_IMAGES} images per message`),
    });

    const oversize = await fails('chat.send', {
      sessionId: session.id,
      text: 'look',
      images: [{ name: 'a.png', data: 'A'.repeat(MAX_SEND_REQUEST_BYTES) }],
    });
    expect(oversize).toMatchObject({ code: 'too_large' });
    expect(oversize.message).toContain(`limit ${MAX_SEND_REQUEST_BYTES}`);
    expect(server.requests.length).toBe(before);
    expect((await call('sessions.history', { sessionId: session.id })).messages).toEqual([]);
  });

  it('every other channel keeps the ordinary request bound', async () => {
    const error = await fails('sessions.create', { title: 'x'.repeat(2 * 1024 * 1024) });
    expect(error).toMatchObject({ code: 'too_large' });
    expect(error.message).toContain(`limit ${1024 * 1024}`);
  });
});
