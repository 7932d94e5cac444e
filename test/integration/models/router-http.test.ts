/**
 * The router over real HTTP providers on 127.0.0.1: a fallback chain across three protocols,
 * each server failing differently, tried in order without skipping; limits refusing a request
 * before it reaches the network; a reply broken after output is not replayed elsewhere.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { defineModel } from '../../../src/main/core/models/catalog.js';
import { envLookup } from '../../../src/main/core/models/credentials.js';
import { type HttpProtocol, HttpProvider } from '../../../src/main/core/models/http-provider.js';
import { type ModelId, modelId, providerId } from '../../../src/main/core/models/ids.js';
import type { ProviderLimits } from '../../../src/main/core/models/limits.js';
import { ModelRouter } from '../../../src/main/core/models/router.js';
import type { ModelEvent } from '../../../src/main/core/models/types.js';
import { userText } from '../../../src/shared/messages.js';
import { startVendorServer, type VendorServer } from '../../fixtures/vendor-server.js';
import { anthropicFrames, geminiFrames, openaiFrames } from '../../fixtures/vendor-streams.js';

const servers: VendorServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function vendor(
  name: string,
  protocol: HttpProtocol,
  router: ModelRouter,
  key: string,
  fallback: ModelId[] = [],
  limits?: ProviderLimits,
) {
  const server = await startVendorServer(protocol === 'gemini' ? '/v1beta' : '/v1');
  servers.push(server);
  const id = providerId(name);
  router.register(
    defineModel({
      id: `${name}/m`,
      protocol,
      capabilities: { tools: true, contextWindow: 100_000 },
    }),
    new HttpProvider({ id, protocol, endpoint: server.url, apiKey: key, secrets: envLookup({}) }),
    { retry: { maxAttempts: 2, initialDelayMs: 5, backoff: 'exponential' }, fallback, limits },
  );
  return server;
}

async function collect(events: AsyncIterable<ModelEvent>) {
  const out: ModelEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

describe('router over real HTTP providers', () => {
  it('walks the fallback chain in order, retrying only what is retryable', async () => {
    const router = new ModelRouter();
    const keys = ['key-anthropic-111', 'key-openai-222', 'key-gemini-333'];
    const a = await vendor('a', 'anthropic', router, keys[0] as string, [
      modelId('b/m'),
      modelId('c/m'),
    ]);
    const b = await vendor('b', 'openai-compatible', router, keys[1] as string);
    const c = await vendor('c', 'gemini', router, keys[2] as string);
    a.reply(
      {
        kind: 'json',
        status: 429,
        headers: { 'retry-after-ms': '40' },
        body: { type: 'error', error: { type: 'rate_limit_error', message: 'slow' } },
      },
      {
        kind: 'json',
        status: 529,
        body: { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } },
      },
    );
    b.reply({ kind: 'json', status: 401, body: { error: { message: `invalid key ${keys[1]}` } } });
    c.reply({
      kind: 'sse',
      frames: geminiFrames({ text: ['from ', 'gemini'], usage: { input: 12, output: 3 } }),
    });

    const stream = router.stream(
      { messages: [userText('hi')] },
      { strategy: 'fallback', model: modelId('a/m') },
    );
    const events = await collect(stream);
    expect(events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : []))).toEqual([
      'from ',
      'gemini',
    ]);
    expect([a.requests.length, b.requests.length, c.requests.length]).toEqual([2, 1, 1]);
    expect(stream.report.attempts.map((r) => [r.model, r.attempt, r.outcome])).toEqual([
      ['a/m', 1, 'failed'],
      ['a/m', 2, 'failed'],
      ['b/m', 1, 'failed'],
      ['c/m', 1, 'served'],
    ]);
    // The 429's Retry-After (40 ms) outweighs the 5 ms backoff.
    expect(stream.report.attempts[0]?.delayMs).toBeGreaterThanOrEqual(40);
    expect(stream.report.causes.map((e) => e.code)).toEqual(['server_error', 'auth']);
    expect(stream.report.served).toBe('c/m');
    const visible = JSON.stringify({
      events,
      report: stream.report,
      causes: stream.report.causes.map((e) => e.message),
    });
    for (const key of keys) expect(visible).not.toContain(key);
  });

  it('refuses a request over a provider limit before anything is sent (CKP -32021)', async () => {
    const router = new ModelRouter();
    const a = await vendor('a', 'openai-compatible', router, 'k1', [modelId('b/m')], {
      tokensPerRequest: 50,
    });
    const b = await vendor('b', 'anthropic', router, 'k2');
    b.reply({ kind: 'sse', frames: anthropicFrames({ text: ['ok'] }) });
    const stream = router.stream(
      { messages: [userText('x'.repeat(400))], maxTokens: 100 },
      { strategy: 'fallback', model: modelId('a/m') },
    );
    await collect(stream);
    expect(a.requests).toHaveLength(0);
    expect(b.requests).toHaveLength(1);
    const [quota] = stream.report.causes;
    expect(quota?.code).toBe('quota_exceeded');
    expect(quota?.ckpCode).toBe(-32021);
    expect(quota?.message).toMatch(/tokens_per_request|tokens per request/i);
  });

  it('does not replay a reply that broke after output reached the consumer', async () => {
    const router = new ModelRouter();
    const a = await vendor('a', 'openai-compatible', router, 'k1', [modelId('b/m')]);
    const b = await vendor('b', 'openai-compatible', router, 'k2');
    const frames = openaiFrames({ text: ['partial ', 'answer'] });
    const text = frames.join('');
    a.reply({
      kind: 'sse',
      frames,
      cutAfterBytes: Buffer.byteLength(text.slice(0, text.indexOf('answer'))),
    });
    const stream = router.stream(
      { messages: [userText('hi')] },
      { strategy: 'fallback', model: modelId('a/m') },
    );
    const events = await collect(stream);
    expect(events.at(-1)).toMatchObject({
      type: 'connection_lost',
      error: { code: 'truncated', provider: 'a' },
    });
    expect(b.requests).toHaveLength(0);
    expect(stream.report.attempts.map((r) => r.outcome)).toEqual(['interrupted']);
  });
});
