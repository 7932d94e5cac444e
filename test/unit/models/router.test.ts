import { describe, expect, it } from 'vitest';
import { defineModel, type ModelDefinition } from '../../../src/main/core/models/catalog.js';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { type ModelId, modelId, providerId } from '../../../src/main/core/models/ids.js';
import { LimitTracker } from '../../../src/main/core/models/limits.js';
import { BALANCED_WEIGHTS, ModelRouter } from '../../../src/main/core/models/router.js';
import type { ModelProvider, ModelRequest } from '../../../src/main/core/models/types.js';
import { userText } from '../../../src/shared/messages.js';
import { collect, FakeProvider, finish, rejection } from './fake-provider.js';

const hello: ModelRequest = { messages: [userText('hello')], maxTokens: 100 };

function model(id: string, extra: Partial<ModelDefinition> = {}) {
  return defineModel({
    id,
    protocol: 'openai-compatible',
    capabilities: {
      tools: true,
      json: true,
      vision: true,
      contextWindow: 100_000,
      maxOutputTokens: 4_000,
    },
    ...extra,
  });
}

const ids = (steps: Array<{ model: ModelId }>) => steps.map((step) => step.model);
const texts = (events: Array<{ type: string }>) =>
  events.flatMap((e) => ('text' in e && e.type === 'text_delta' ? [e.text as string] : []));

/** Three models on three providers: dear and good, mid, free and weak. */
function trio(router = new ModelRouter()) {
  const providers = {
    big: new FakeProvider('big', [{ reply: 'big' }]),
    mid: new FakeProvider('mid', [{ reply: 'mid' }]),
    free: new FakeProvider('free', [{ reply: 'free' }]),
  };
  router.register(
    model('big/m', { quality: 0.9, speed: 0.3, pricing: { inputPer1k: 0.01, outputPer1k: 0.03 } }),
    providers.big,
  );
  router.register(
    model('mid/m', {
      quality: 0.6,
      speed: 0.9,
      pricing: { inputPer1k: 0.001, outputPer1k: 0.002 },
    }),
    providers.mid,
  );
  router.register(model('free/m', { quality: 0.3, speed: 0.6 }), providers.free);
  return { router, providers };
}

describe('router strategies', () => {
  it('orders the pool by quality, speed, cost, cascade and a weighted balance', () => {
    const { router } = trio();
    const order = (strategy: 'quality' | 'speed' | 'cost' | 'cascade' | 'balanced') =>
      ids(router.route(hello, { strategy }).steps);
    expect(order('quality')).toEqual(['big/m', 'mid/m', 'free/m']);
    expect(order('speed')).toEqual(['mid/m', 'free/m', 'big/m']);
    expect(order('cost')).toEqual(['free/m', 'mid/m', 'big/m']);
    expect(order('cascade')).toEqual(['free/m', 'mid/m', 'big/m']);
    const balanced = router.route(hello, { strategy: 'balanced' }).steps;
    // Cost is scored on a log scale: mid gets about a third of the cost weight, the dear one none.
    expect(ids(balanced)).toEqual(['mid/m', 'free/m', 'big/m']);
    const w = BALANCED_WEIGHTS;
    expect(balanced[1]?.score).toBeCloseTo(w.quality * 0.3 + w.speed * 0.6 + w.cost * 1, 10);
    expect(balanced[2]?.score).toBeCloseTo(w.quality * 0.9 + w.speed * 0.3, 10);
    expect(
      router
        .route(hello, { strategy: 'quality', models: [modelId('free/m'), modelId('mid/m')] })
        .steps.map((s) => s.model),
    ).toEqual(['mid/m', 'free/m']);
  });

  it('filters out models lacking tools, vision, json or context room, saying why', () => {
    const router = new ModelRouter();
    const p = (id: string) => new FakeProvider(id, [{ reply: id }]);
    router.register(model('full/m'), p('full'));
    router.register(
      model('notools/m', {
        capabilities: { tools: false, vision: true, json: true, contextWindow: 100_000 },
      }),
      p('notools'),
    );
    router.register(
      model('blind/m', {
        capabilities: { tools: true, vision: false, json: true, contextWindow: 100_000 },
      }),
      p('blind'),
    );
    router.register(
      model('nojson/m', {
        capabilities: { tools: true, vision: true, json: false, contextWindow: 100_000 },
      }),
      p('nojson'),
    );
    router.register(
      model('small/m', {
        capabilities: {
          tools: true,
          vision: true,
          json: true,
          contextWindow: 200,
          maxOutputTokens: 100,
        },
      }),
      p('small'),
    );
    const plan = (request: ModelRequest) => {
      const result = router.route(request, { strategy: 'quality' });
      return { steps: ids(result.steps), excluded: result.excluded.map((e) => e.reason.message) };
    };
    expect(
      plan({ ...hello, tools: [{ name: 't', parameters: { type: 'object' } }] }).excluded,
    ).toEqual(['notools: notools/m cannot serve this request: no tool calling']);
    // toolChoice none sends no tools: no capability needed.
    expect(
      plan({ ...hello, tools: [{ name: 't', parameters: {} }], toolChoice: 'none' }).excluded,
    ).toEqual([]);
    const image = { type: 'image' as const, mediaType: 'image/png', data: 'AAAA' };
    expect(plan({ messages: [{ role: 'user', content: [image] }] }).steps).not.toContain('blind/m');
    expect(plan({ ...hello, jsonSchema: { type: 'object' } }).steps).not.toContain('nojson/m');
    const long = plan({ messages: [userText('x'.repeat(800))], maxTokens: 50 });
    expect(long.excluded).toEqual([
      'small: small/m cannot serve this request: an estimated 250 tokens exceed its context window 200',
    ]);
    expect(plan({ ...hello, maxTokens: 150 }).excluded[0]).toContain(
      'maxTokens 150 exceeds its output limit 100',
    );
    expect(router.route(hello, { strategy: 'speed', requires: { reasoning: true } }).steps).toEqual(
      [],
    );
  });

  it('refuses unknown models with a suggestion, and a model outside fallback', () => {
    const { router } = trio();
    const error = (() => {
      try {
        router.route(hello, { strategy: 'fallback', model: modelId('mid/mm') });
      } catch (e) {
        return e as ModelError;
      }
    })();
    expect(error?.code).toBe('unknown_model');
    expect(error?.message).toBe(
      'model "mid/mm" not registered with the router; did you mean "mid/m"?',
    );
    expect(() => router.route(hello, { strategy: 'fallback' })).toThrow('needs a model');
    expect(() => router.route(hello, { strategy: 'cost', model: modelId('mid/m') })).toThrow(
      ModelError,
    );
    expect(() => router.register(model('mid/m'), new FakeProvider('mid', []))).toThrow(
      'already registered',
    );
    expect(() => router.register(model('x/m'), new FakeProvider('y', []))).toThrow(
      'given provider "y"',
    );
  });
});

describe('router fallback', () => {
  it('walks the chain in order, recording skipped entries as failures, never dropping one', async () => {
    const router = new ModelRouter({ sleep: async () => {}, random: () => 0 });
    const primary = new FakeProvider('primary', [
      { fail: new ModelError('auth', 'bad key', { provider: providerId('primary') }) },
    ]);
    const blind = new FakeProvider('blind', [{ reply: 'never' }]);
    const busy = new FakeProvider('busy', [
      { fail: new ModelError('server_error', '503', { provider: providerId('busy') }) },
    ]);
    const last = new FakeProvider('last', [{ reply: 'served by last' }]);
    router.register(model('primary/m'), primary, {
      fallback: [modelId('blind/m'), modelId('ghost/m'), modelId('busy/m'), modelId('last/m')],
    });
    router.register(model('blind/m', { capabilities: { vision: false, tools: false } }), blind);
    router.register(model('busy/m'), busy, {
      retry: { maxAttempts: 2, initialDelayMs: 10, backoff: 'constant' },
    });
    router.register(model('last/m'), last);
    const request: ModelRequest = { ...hello, tools: [{ name: 't', parameters: {} }] };
    const stream = router.stream(request, { strategy: 'fallback', model: modelId('primary/m') });
    expect(ids(stream.report.plan.steps)).toEqual([
      'primary/m',
      'blind/m',
      'ghost/m',
      'busy/m',
      'last/m',
    ]);
    const events = await collect(stream);
    expect(texts(events)).toEqual(['served by last']);
    expect(events.filter((e) => e.type === 'start')).toHaveLength(1);
    expect(blind.calls).toHaveLength(0);
    expect(busy.calls).toHaveLength(2);
    expect(
      stream.report.attempts.map((a) => [a.model, a.attempt, a.outcome, a.error?.code]),
    ).toEqual([
      ['primary/m', 1, 'failed', 'auth'],
      ['blind/m', 0, 'skipped', 'invalid_request'],
      ['ghost/m', 0, 'skipped', 'unknown_model'],
      ['busy/m', 1, 'failed', 'server_error'],
      ['busy/m', 2, 'failed', 'server_error'],
      ['last/m', 1, 'served', undefined],
    ]);
    expect(stream.report.served).toBe('last/m');
    expect(router.lastRoute).toBe(stream.report);
  });

  it('throws all_failed listing every candidate failure in order', async () => {
    const router = new ModelRouter();
    const fail = (id: string, code: 'auth' | 'rejected' | 'bad_response') =>
      new FakeProvider(id, [
        { fail: new ModelError(code, `${code} failure`, { provider: providerId(id) }) },
      ]);
    router.register(model('a/m'), fail('a', 'auth'), {
      fallback: [modelId('b/m'), modelId('nope/m'), modelId('c/m')],
    });
    router.register(model('b/m'), fail('b', 'rejected'));
    router.register(model('c/m'), fail('c', 'bad_response'));
    const error = await rejection(
      collect(router.stream(hello, { strategy: 'fallback', model: modelId('a/m') })),
    );
    expect(error.code).toBe('all_failed');
    expect(error.causes.map((c) => c.code)).toEqual([
      'auth',
      'rejected',
      'unknown_model',
      'bad_response',
    ]);
    expect(error.causes.map((c) => c.provider)).toEqual(['a', 'b', undefined, 'c']);
    expect(error.message).toContain('a: auth failure | b: rejected failure');
    expect(error.toJSON().causes).toHaveLength(4);
  });

  it('falls back when a stream breaks before any content, holding its start event back', async () => {
    const router = new ModelRouter();
    const flaky = new FakeProvider('flaky', [
      {
        events: [
          { type: 'start', provider: providerId('flaky'), model: 'm' },
          new ModelError('rejected', 'bad request', { provider: providerId('flaky') }),
        ],
      },
    ]);
    const backup = new FakeProvider('backup', [{ reply: 'backup' }]);
    router.register(model('flaky/m'), flaky, { fallback: [modelId('backup/m')] });
    router.register(model('backup/m'), backup);
    const events = await collect(
      router.stream(hello, { strategy: 'fallback', model: modelId('flaky/m') }),
    );
    expect(events.map((e) => e.type)).toEqual(['start', 'text_delta', 'usage', 'finish']);
    expect(events[0]).toEqual({ type: 'start', provider: 'backup', model: 'm' });
  });

  it('treats a provider that throws anything before content as a failure to fall back from', async () => {
    const router = new ModelRouter();
    const broken: ModelProvider = {
      id: providerId('broken'),
      protocol: 'openai-compatible',
      stream() {
        throw new TypeError('not configured');
      },
    };
    const buggy = new FakeProvider('buggy', [{ events: [new RangeError('bug')] }]);
    const backup = new FakeProvider('backup', [{ reply: 'backup' }]);
    router.register(model('broken/m'), broken, {
      fallback: [modelId('buggy/m'), modelId('backup/m')],
    });
    router.register(model('buggy/m'), buggy);
    router.register(model('backup/m'), backup);
    const stream = router.stream(hello, { strategy: 'fallback', model: modelId('broken/m') });
    expect(texts(await collect(stream))).toEqual(['backup']);
    expect(stream.report.causes.map((c) => [c.code, c.message])).toEqual([
      ['bad_response', 'unexpected failure: not configured'],
      ['bad_response', 'unexpected failure: bug'],
    ]);
  });

  it('never falls back once content went out: the failure surfaces as connection_lost', async () => {
    const router = new ModelRouter();
    const lost = new ModelError('truncated', 'socket closed', { provider: providerId('talky') });
    const talky = new FakeProvider('talky', [
      {
        events: [
          { type: 'start', provider: providerId('talky'), model: 'm' },
          { type: 'text_delta', text: 'Hel' },
          {
            type: 'connection_lost',
            error: lost,
            partial: { role: 'assistant', content: [{ type: 'text', text: 'Hel' }] },
          },
        ],
      },
    ]);
    const backup = new FakeProvider('backup', [{ reply: 'backup' }]);
    router.register(model('talky/m'), talky, { fallback: [modelId('backup/m')] });
    router.register(model('backup/m'), backup);
    const stream = router.stream(hello, { strategy: 'fallback', model: modelId('talky/m') });
    const events = await collect(stream);
    expect(events.map((e) => e.type)).toEqual(['start', 'text_delta', 'connection_lost']);
    expect(talky.calls).toHaveLength(1);
    expect(backup.calls).toHaveLength(0);
    expect(stream.report.served).toBe('talky/m');
    expect(stream.report.attempts[0]?.outcome).toBe('interrupted');

    // A provider that throws after content gets a connection_lost made for it.
    const thrower = new FakeProvider('thrower', [
      {
        events: [
          { type: 'text_delta', text: 'partial ' },
          new ModelError('unreachable', 'reset', { provider: providerId('thrower') }),
        ],
      },
    ]);
    router.register(model('thrower/m'), thrower, { fallback: [modelId('backup/m')] });
    const made = await collect(
      router.stream(hello, { strategy: 'fallback', model: modelId('thrower/m') }),
    );
    expect(made.at(-1)).toMatchObject({
      type: 'connection_lost',
      error: { code: 'unreachable' },
      partial: { role: 'assistant', content: [{ type: 'text', text: 'partial ' }] },
    });
    expect(backup.calls).toHaveLength(0);
  });
});

describe('router limits and retries', () => {
  it('refuses an over-limit request with -32021 before calling the provider', async () => {
    const router = new ModelRouter();
    const capped = new FakeProvider('capped', [{ reply: 'never' }]);
    router.register(model('capped/m'), capped, { limits: { tokensPerRequest: 50 } });
    const error = await rejection(
      collect(router.stream(hello, { strategy: 'fallback', model: modelId('capped/m') })),
    );
    expect(error.code).toBe('quota_exceeded');
    expect(error.ckpCode).toBe(-32021);
    expect(error.causes[0]?.message).toBe(
      'capped: tokens_per_request limit 50 exceeded: this request is an estimated 102 tokens',
    );
    expect(capped.calls).toHaveLength(0);

    // With somewhere to go, the quota failure is recorded and the next model serves.
    const open = new FakeProvider('open', [{ reply: 'open' }]);
    router.register(model('open/m'), open);
    const stream = router.stream(hello, { strategy: 'quality' });
    expect(texts(await collect(stream))).toEqual(['open']);
    expect(stream.report.causes.map((c) => [c.code, c.ckpCode])).toEqual([
      ['quota_exceeded', -32021],
    ]);
    expect(capped.calls).toHaveLength(0);
  });

  it('enforces requests_per_minute over a sliding window on a fake clock', async () => {
    let now = 5_000_000;
    const router = new ModelRouter({ limits: new LimitTracker({ now: () => now }) });
    const provider = new FakeProvider('rpm', [{ reply: 'ok' }]);
    router.register(model('rpm/m'), provider, { limits: { requestsPerMinute: 2 } });
    const once = () =>
      collect(router.stream(hello, { strategy: 'fallback', model: modelId('rpm/m') }));
    await once();
    now += 20_000;
    await once();
    now += 39_999;
    const error = await rejection(once());
    expect(error.causes[0]?.message).toBe(
      'rpm: requests_per_minute limit 2 reached: 2 requests in the last 60 s',
    );
    expect(provider.calls).toHaveLength(2);
    now += 1;
    await once();
    expect(provider.calls).toHaveLength(3);
    // Settled usage from the fake replies (10 in + 5 out each) is charged to the day.
    expect(router.limits.usedToday(providerId('rpm'))).toBe(45);
  });

  it('retries a 429 after its Retry-After, recording the delay', async () => {
    const delays: number[] = [];
    const router = new ModelRouter({
      random: () => 0.5,
      sleep: async (ms) => void delays.push(ms),
    });
    const provider = new FakeProvider('rl', [
      {
        fail: new ModelError('rate_limited', '429', {
          provider: providerId('rl'),
          status: 429,
          retryAfterMs: 3_000,
        }),
      },
      { fail: new ModelError('timeout', 'slow', { provider: providerId('rl') }) },
      { reply: 'third time' },
    ]);
    router.register(model('rl/m'), provider, {
      retry: { maxAttempts: 3, initialDelayMs: 1_000, backoff: 'exponential' },
    });
    const stream = router.stream(hello, { strategy: 'fallback', model: modelId('rl/m') });
    expect(texts(await collect(stream))).toEqual(['third time']);
    // 3000 from Retry-After (over the 500 jitter); then 0.5 * 2000 for the second retry.
    expect(delays).toEqual([3_000, 1_000]);
    expect(stream.report.attempts.map((a) => a.delayMs)).toEqual([3_000, 1_000, undefined]);
  });

  it('rejects with cancelled at once when aborted during a backoff, trying nothing else', async () => {
    const controller = new AbortController();
    const router = new ModelRouter({ sleep: () => new Promise(() => {}) });
    const slow = new FakeProvider('slow', [
      { fail: new ModelError('server_error', '500', { provider: providerId('slow') }) },
    ]);
    const backup = new FakeProvider('backup', [{ reply: 'backup' }]);
    router.register(model('slow/m'), slow, { fallback: [modelId('backup/m')] });
    router.register(model('backup/m'), backup);
    const pending = collect(
      router.stream(
        { ...hello, signal: controller.signal },
        { strategy: 'fallback', model: modelId('slow/m') },
      ),
    );
    setTimeout(() => controller.abort(), 20);
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(slow.calls).toHaveLength(1);
    expect(backup.calls).toHaveLength(0);
  });

  it('closes the provider stream and frees the reservation when the consumer stops early', async () => {
    const router = new ModelRouter();
    const provider = new FakeProvider('p', [{ reply: 'long reply' }]);
    router.register(model('p/m'), provider, { limits: { tokensPerDay: 1_000 } });
    for await (const event of router.stream(hello, {
      strategy: 'fallback',
      model: modelId('p/m'),
    })) {
      if (event.type === 'text_delta') break;
    }
    expect(provider.closed).toBe(1);
    expect(router.limits.usedToday(providerId('p'))).toBe(0);
  });
});

describe('router cascade and cost', () => {
  it('escalates from the cheapest model when accept rejects or a model fails, showing only the accepted reply', async () => {
    const router = new ModelRouter();
    const free = new FakeProvider('free', [
      { reply: 'meh', usage: { inputTokens: 100, outputTokens: 10 } },
    ]);
    const mid = new FakeProvider('mid', [
      { fail: new ModelError('bad_response', 'garbled', { provider: providerId('mid') }) },
    ]);
    const big = new FakeProvider('big', [
      { reply: 'good answer', usage: { inputTokens: 1_000, outputTokens: 1_000 } },
    ]);
    router.register(model('free/m', { quality: 0.2 }), free);
    router.register(model('mid/m', { pricing: { inputPer1k: 0.001, outputPer1k: 0.002 } }), mid);
    router.register(model('big/m', { pricing: { inputPer1k: 0.01, outputPer1k: 0.03 } }), big);
    const stream = router.stream(hello, {
      strategy: 'cascade',
      accept: (finish) =>
        finish.message.content.some((b) => b.type === 'text' && b.text.includes('good')),
    });
    const events = await collect(stream);
    expect(texts(events)).toEqual(['good answer']);
    expect(events.map((e) => e.type)).toEqual(['start', 'text_delta', 'usage', 'finish']);
    expect(stream.report.attempts.map((a) => [a.model, a.outcome])).toEqual([
      ['free/m', 'not_accepted'],
      ['mid/m', 'failed'],
      ['big/m', 'served'],
    ]);
    // The rejected reply still cost tokens: both are on the ledger.
    expect(router.ledger.breakdown().map((e) => [e.model, e.calls])).toEqual([
      ['free/m', 1],
      ['big/m', 1],
    ]);
    expect(stream.report.costUsd).toBeCloseTo(0.04, 12);
    expect(router.ledger.totalUsd).toBeCloseTo(0.04, 12);
  });

  it('fails the cascade when even the last reply is rejected', async () => {
    const { router } = trio();
    const error = await rejection(
      collect(router.stream(hello, { strategy: 'cascade', accept: () => false })),
    );
    expect(error.code).toBe('all_failed');
    expect(error.causes.map((c) => [c.provider, c.code])).toEqual([
      ['free', 'rejected'],
      ['mid', 'rejected'],
      ['big', 'rejected'],
    ]);
  });

  it('records usage and cost of a served reply with the descriptor pricing', async () => {
    const { router } = trio();
    const stream = router.stream(hello, { strategy: 'quality' });
    const events = await collect(stream);
    expect(events.at(-1)).toEqual(finish('big'));
    // 10 in * 0.01 + 5 out * 0.03, per 1000.
    expect(stream.report.costUsd).toBeCloseTo(0.00025, 12);
    expect(router.ledger.totals()).toMatchObject({ calls: 1, inputTokens: 10, outputTokens: 5 });
    expect(router.limits.usedToday(providerId('big'))).toBe(15);
  });

  it('throws all_failed with the exclusion reasons when no model fits', async () => {
    const { router } = trio();
    const error = await rejection(
      collect(router.stream(hello, { strategy: 'cost', requires: { reasoning: true } })),
    );
    expect(error.code).toBe('all_failed');
    expect(error.causes.map((c) => c.provider)).toEqual(['big', 'mid', 'free']);
    const empty = await rejection(collect(new ModelRouter().stream(hello, { strategy: 'speed' })));
    expect(empty.message).toBe('no registered model can serve this request');
  });
});
