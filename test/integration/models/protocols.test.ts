/**
 * Every HTTP adapter against a real server on 127.0.0.1 speaking that vendor's wire format:
 * exact request bodies, parsed streams (fragmented tool arguments, split UTF-8), vendor error
 * bodies, truncated and malformed streams, deadlines, cancellation and credential hygiene.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envLookup } from '../../../src/main/core/models/credentials.js';
import { isModelError, type ModelError } from '../../../src/main/core/models/errors.js';
import { type HttpProtocol, HttpProvider } from '../../../src/main/core/models/http-provider.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import type { ModelEvent, ModelRequest } from '../../../src/main/core/models/types.js';
import type { Message, ToolDef } from '../../../src/shared/messages.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import {
  anthropicFrames,
  geminiFrames,
  openaiFrames,
  responsesFrames,
  type Turn,
} from '../../fixtures/vendor-streams.js';

const KEY = 'sk-test-SECRET-0123456789';

const CASES: {
  protocol: HttpProtocol;
  frames: (turn: Turn) => string[];
  prefix: string;
  path: string;
  authHeader: [string, string];
}[] = [
  {
    protocol: 'openai-compatible',
    frames: openaiFrames,
    prefix: '/v1',
    path: '/chat/completions',
    authHeader: ['authorization', `Bearer ${KEY}`],
  },
  {
    protocol: 'responses',
    frames: responsesFrames,
    prefix: '/v1',
    path: '/responses',
    authHeader: ['authorization', `Bearer ${KEY}`],
  },
  {
    protocol: 'anthropic',
    frames: anthropicFrames,
    prefix: '/v1',
    path: '/messages',
    authHeader: ['x-api-key', KEY],
  },
  {
    protocol: 'gemini',
    frames: geminiFrames,
    prefix: '/v1beta',
    path: '/models/m:streamGenerateContent?alt=sse',
    authHeader: ['x-goog-api-key', KEY],
  },
];

const TOOLS: ToolDef[] = [
  {
    name: 'fs_read',
    description: 'Read a file',
    parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
  },
  { name: 'clock', description: 'Current time', parameters: { type: 'object', properties: {} } },
];

const CONVERSATION: Message[] = [
  {
    role: 'user',
    content: [
      { type: 'text', text: 'What is in notes.txt? Also this picture.' },
      { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' },
    ],
  },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 'call_a', name: 'fs_read', input: { path: 'notes.txt' } },
    ],
  },
  {
    role: 'user',
    content: [{ type: 'tool_result', toolUseId: 'call_a', content: 'buy milk' }],
  },
];

async function collect(events: AsyncIterable<ModelEvent>): Promise<ModelEvent[]> {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(events: AsyncIterable<ModelEvent>): Promise<ModelError> {
  try {
    await collect(events);
  } catch (error) {
    if (isModelError(error)) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/** The frames up to and including the first one that carries `word`. */
const upTo = (frames: string[], word: string) =>
  frames.slice(0, frames.findIndex((f) => f.includes(word)) + 1);

const last = (events: ModelEvent[]) => events.at(-1);
const texts = (events: ModelEvent[]) =>
  events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []));

describe.each(CASES)('$protocol adapter', ({ protocol, frames, prefix, path, authHeader }) => {
  let server: VendorServer;
  beforeAll(async () => {
    server = await startVendorServer(prefix);
  });
  afterAll(() => server.close());

  const provider = (options: Partial<ConstructorParameters<typeof HttpProvider>[0]> = {}) =>
    new HttpProvider({
      id: providerId('vendor'),
      protocol,
      endpoint: server.url,
      apiKey: KEY,
      secrets: envLookup({}),
      ...options,
    });
  const ask = (request: Partial<ModelRequest> = {}) => ({
    system: 'You are terse.',
    messages: CONVERSATION,
    tools: TOOLS,
    maxTokens: 256,
    temperature: 0,
    stop: ['END'],
    ...request,
  });

  it('serializes the conversation exactly as the vendor documents it', async () => {
    server.reply({ kind: 'sse', frames: frames({ text: ['ok'] }) });
    await collect(provider().stream('m', ask()));
    const request = server.requests.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.path).toBe(path);
    expect(request?.headers[authHeader[0]]).toBe(authHeader[1]);
    expect(request?.body).toMatchSnapshot();
  });

  it('serializes a frozen history the same every turn, and a changed message as it is now', async () => {
    const body = async (messages: Message[]) => {
      server.reply({ kind: 'sse', frames: frames({ text: ['ok'] }) });
      await collect(provider().stream('m', ask({ messages })));
      return server.requests.at(-1)?.body;
    };
    const freeze = <T>(value: T): T => {
      if (value && typeof value === 'object') Object.values(value).forEach(freeze);
      return Object.freeze(value);
    };
    const plain = await body(CONVERSATION);
    // The run store hands out a conversation's messages frozen, the same objects each turn.
    const frozen = freeze(structuredClone(CONVERSATION));
    expect(await body(frozen)).toEqual(plain);
    expect(await body(frozen)).toEqual(plain);
    // A message that is not frozen may change between turns: the request says what it is now.
    const mutable = structuredClone(CONVERSATION);
    await body(mutable);
    const first = mutable[0]?.content[0];
    if (first?.type === 'text') first.text = 'What is in todo.txt?';
    expect(JSON.stringify(await body(mutable))).toContain('What is in todo.txt?');
  });

  it('streams reasoning, text and usage into one assistant message', async () => {
    server.reply({
      kind: 'sse',
      frames: frames({
        reasoning: ['Let me', ' think.'],
        text: ['Hel', 'lo, café ☕'],
        usage: { input: 42, output: 7 },
      }),
      chunkBytes: 3,
    });
    const events = await collect(provider().stream('m', ask()));
    expect(events[0]).toEqual({ type: 'start', provider: 'vendor', model: 'm' });
    expect(texts(events)).toEqual(['Hel', 'lo, café ☕']);
    const end = last(events);
    expect(end?.type).toBe('finish');
    if (end?.type !== 'finish') return;
    expect(end.stopReason).toBe('end_turn');
    expect(end.usage).toMatchObject({ inputTokens: 42, outputTokens: 7 });
    const reasoning = end.message.content.find((b) => b.type === 'reasoning');
    expect(reasoning).toMatchObject({ type: 'reasoning', text: 'Let me think.' });
    expect(end.message.content.find((b) => b.type === 'text')).toEqual({
      type: 'text',
      text: 'Hello, café ☕',
    });
  });

  it('reassembles tool arguments split mid-escape, mid-\\u-escape and mid-character', async () => {
    const args = [
      '{"pa',
      'th": "C:\\',
      '\\tmp\\u00',
      'e9 caf\u00e9 \ud83d',
      '\ude00", "n"',
      ': [1,',
      ' 2]}',
    ];
    server.reply({
      kind: 'sse',
      frames: frames({
        text: ['Looking.'],
        tools: [
          { id: 'call_1', name: 'fs_read', args },
          { id: 'call_2', name: 'clock', args: ['{}'] },
        ],
      }),
      chunkBytes: 2,
    });
    const events = await collect(provider().stream('m', ask()));
    const end = last(events);
    if (end?.type !== 'finish') throw new Error(`expected finish, got ${JSON.stringify(end)}`);
    expect(end.stopReason).toBe('tool_use');
    const calls = end.message.content.filter((b) => b.type === 'tool_use');
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      name: 'fs_read',
      input: { path: 'C:\\tmp\u00e9 caf\u00e9 😀', n: [1, 2] },
    });
    expect(calls[1]).toMatchObject({ name: 'clock', input: {} });
    const starts = events.filter((e) => e.type === 'tool_call_start');
    expect(starts.map((s) => (s.type === 'tool_call_start' ? s.name : ''))).toEqual([
      'fs_read',
      'clock',
    ]);
  });

  it('reports max_tokens', async () => {
    server.reply({ kind: 'sse', frames: frames({ text: ['cut'], finish: 'length' }) });
    const end = last(await collect(provider().stream('m', ask())));
    expect(end).toMatchObject({ type: 'finish', stopReason: 'max_tokens' });
  });

  it('maps 429 with Retry-After to rate_limited and keeps the vendor message', async () => {
    server.reply({
      kind: 'json',
      status: 429,
      headers: { 'retry-after': '7' },
      body: { error: { type: 'rate_limit_error', message: 'Slow down please' } },
    });
    const error = await failure(provider().stream('m', ask()));
    expect(error.code).toBe('rate_limited');
    expect(error.retryAfterMs).toBe(7000);
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('vendor: HTTP 429: Slow down please');
  });

  it('maps a 500 to a retryable server_error', async () => {
    server.reply({ kind: 'text', status: 500, body: 'upstream exploded' });
    const error = await failure(provider().stream('m', ask()));
    expect(error).toMatchObject({ code: 'server_error', status: 500 });
    expect(error.message).toContain('upstream exploded');
  });

  it('never lets the key out, even when the vendor echoes it', async () => {
    server.reply({
      kind: 'json',
      status: 401,
      body: { error: { message: `Incorrect API key provided: ${KEY}` } },
    });
    const error = await failure(provider().stream('m', ask()));
    expect(error.code).toBe('auth');
    expect(server.requests.at(-1)?.headers[authHeader[0]]).toContain(KEY);
    const everything = `${error.message} ${JSON.stringify(error)} ${String(error.stack)}`;
    expect(everything).not.toContain(KEY);
    expect(everything).toContain('[REDACTED]');
  });

  it('ends with connection_lost when the stream breaks inside a tool call', async () => {
    const all = frames({
      text: ['Working on it.'],
      tools: [
        {
          id: 'call_9',
          name: 'fs_read',
          args: ['{"path": ', '"a very long path that never ends', '"}'],
        },
      ],
    });
    const text = all.join('');
    const cutAt = Buffer.byteLength(text.slice(0, text.indexOf('a very long path')), 'utf8') + 4;
    server.reply({ kind: 'sse', frames: all, cutAfterBytes: cutAt });
    const events = await collect(provider().stream('m', ask()));
    const end = last(events);
    if (end?.type !== 'connection_lost')
      throw new Error(`expected connection_lost, got ${end?.type}`);
    expect(['truncated']).toContain(end.error.code);
    expect(end.error.provider).toBe('vendor');
    expect(end.partial.content).toEqual([{ type: 'text', text: 'Working on it.' }]);
  });

  it('ignores SSE comments and unknown fields but rejects a data line that is not JSON', async () => {
    const good = frames({ text: ['fine'] });
    server.reply({
      kind: 'sse',
      frames: [': keep-alive\n\n', 'retry: 1000\nfoo bar\n\n', ...good],
    });
    expect(texts(await collect(provider().stream('m', ask())))).toEqual(['fine']);

    server.reply({
      kind: 'sse',
      frames: [...upTo(frames({ text: ['partial'] }), 'partial'), 'data: {not json\n\n'],
    });
    const events = await collect(provider().stream('m', ask()));
    const end = last(events);
    if (end?.type !== 'connection_lost')
      throw new Error(`expected connection_lost, got ${end?.type}`);
    expect(end.error.code).toBe('bad_response');
    expect(end.error.message).toContain('not JSON');
  });

  it('throws a retryable error when the stream dies before any output', async () => {
    server.reply({ kind: 'sse', frames: frames({ text: ['never seen'] }), cutAfterBytes: 5 });
    const error = await failure(provider().stream('m', ask()));
    expect(error.code).toBe('truncated');
    expect(error.retryable).toBe(true);
  });

  it('times out a server that never answers', async () => {
    server.reply({ kind: 'hang' });
    const started = Date.now();
    const error = await failure(provider({ timeoutMs: 150 }).stream('m', ask()));
    expect(error.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('ends a stream that goes silent with connection_lost (timeout)', async () => {
    server.reply({ kind: 'sse', frames: upTo(frames({ text: ['one'] }), 'one'), hang: true });
    const events = await collect(provider({ idleTimeoutMs: 150 }).stream('m', ask()));
    expect(last(events)).toMatchObject({ type: 'connection_lost', error: { code: 'timeout' } });
  });

  it('cancels at once and leaves no socket open', async () => {
    server.reply({ kind: 'sse', frames: upTo(frames({ text: ['first'] }), 'first'), hang: true });
    const controller = new AbortController();
    const events: ModelEvent[] = [];
    for await (const event of provider().stream('m', ask({ signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text_delta') controller.abort();
    }
    expect(last(events)).toMatchObject({ type: 'finish', stopReason: 'cancelled' });
    const request = server.requests.at(-1);
    const deadline = Date.now() + 2000;
    while (!request?.socketClosed() && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 10));
    expect(request?.socketClosed()).toBe(true);
  });
});

describe('bad configuration and unreachable hosts', () => {
  it('names the provider when the host refuses connections', async () => {
    const server = await startVendorServer();
    const url = server.url;
    await server.close();
    const provider = new HttpProvider({
      id: providerId('gone'),
      protocol: 'openai-compatible',
      endpoint: url,
      auth: 'none',
      secrets: envLookup({}),
    });
    const error = await failure(provider.stream('m', { messages: [] }));
    expect(error.code).toBe('unreachable');
    expect(error.message).toMatch(
      /^gone: cannot reach http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/,
    );
  });

  it('rejects an endpoint that is not an http URL', () => {
    expect(
      () =>
        new HttpProvider({
          id: providerId('x'),
          protocol: 'anthropic',
          endpoint: 'ftp://127.0.0.1/',
          secrets: envLookup({}),
        }),
    ).toThrow(/endpoint must be http\(s\)/);
    expect(
      () =>
        new HttpProvider({
          id: providerId('x'),
          protocol: 'anthropic',
          endpoint: 'not a url',
          secrets: envLookup({}),
        }),
    ).toThrow(/is not a URL/);
  });

  it('falls back to the conventional environment variable for the key', async () => {
    const server = await startVendorServer();
    server.reply({ kind: 'sse', frames: openaiFrames({ text: ['hi'] }) });
    const provider = new HttpProvider({
      id: providerId('o'),
      protocol: 'openai-compatible',
      endpoint: server.url,
      secrets: envLookup({ OPENAI_API_KEY: 'env-key-123' }),
    });
    await collect(provider.stream('m', { messages: [] }));
    expect(server.requests[0]?.headers.authorization).toBe('Bearer env-key-123');
    await server.close();
  });

  it('reports a non-JSON body on a non-streaming call as bad_response', async () => {
    const server = await startVendorServer();
    server.reply({ kind: 'text', status: 200, body: '<html>proxy login</html>' });
    const provider = new HttpProvider({
      id: providerId('p'),
      protocol: 'openai-compatible',
      endpoint: server.url,
      auth: 'none',
      streaming: false,
      secrets: envLookup({}),
    });
    const error = await failure(provider.stream('m', { messages: [] }));
    expect(error.code).toBe('bad_response');
    expect(error.message).toContain('<html>proxy login</html>');
    await server.close();
  });
});

describe('Responses API chaining', () => {
  it('sends previous_response_id and only the new items', async () => {
    const server = await startVendorServer();
    server.reply({
      kind: 'sse',
      frames: responsesFrames({
        id: 'resp_first',
        tools: [{ id: 'call_a', name: 'fs_read', args: ['{"path":"notes.txt"}'] }],
      }),
    });
    server.reply({ kind: 'sse', frames: responsesFrames({ id: 'resp_second', text: ['Milk.'] }) });
    const provider = new HttpProvider({
      id: providerId('oai'),
      protocol: 'responses',
      endpoint: server.url,
      auth: 'none',
      secrets: envLookup({}),
    });
    const first = last(
      await collect(provider.stream('m', { messages: [CONVERSATION[0] as Message], tools: TOOLS })),
    );
    if (first?.type !== 'finish') throw new Error('expected finish');
    expect(first.responseId).toBe('resp_first');
    const second = last(
      await collect(
        provider.stream('m', {
          messages: [CONVERSATION[0] as Message, first.message, CONVERSATION[2] as Message],
          tools: TOOLS,
          providerOptions: { responses: { previousResponseId: first.responseId } },
        }),
      ),
    );
    expect(second).toMatchObject({ type: 'finish', responseId: 'resp_second' });
    const body = server.requests[1]?.body as Record<string, unknown>;
    expect(body.previous_response_id).toBe('resp_first');
    expect(body.input).toEqual([
      { type: 'function_call_output', call_id: 'call_a', output: 'buy milk' },
    ]);
    await server.close();
  });
});
