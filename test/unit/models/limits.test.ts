import { afterEach, describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import {
  estimateInputTokens,
  estimateRequestTokens,
  LimitTracker,
  localDay,
  MemoryUsageStore,
} from '../../../src/main/core/models/limits.js';
import type { ModelRequest } from '../../../src/main/core/models/types.js';
import { SqliteUsageStore } from '../../../src/main/core/models/usage-store.js';
import { type Db, openDatabase } from '../../../src/main/core/storage/database.js';
import { userText } from '../../../src/shared/messages.js';

const openai = providerId('openai');

function thrown(run: () => unknown): ModelError {
  try {
    run();
  } catch (error) {
    if (error instanceof ModelError) return error;
    throw error;
  }
  throw new Error('expected a throw');
}

describe('token estimate', () => {
  it('counts chars/4 over system, messages and tools, images flat, plus maxTokens', () => {
    const request: ModelRequest = {
      system: 'x'.repeat(40),
      messages: [
        userText('y'.repeat(40)),
        {
          role: 'user',
          content: [{ type: 'image', mediaType: 'image/png', data: 'z'.repeat(100_000) }],
        },
      ],
      tools: [{ name: 'abcd', parameters: {} }],
      maxTokens: 100,
    };
    // 40 + 40 + 4 + '{}'.length = 86 chars -> 22 tokens, + 1000 for the image.
    expect(estimateInputTokens(request)).toBe(22 + 1000);
    expect(estimateRequestTokens(request)).toBe(1122);
  });
});

describe('limits', () => {
  it('refuses a request over tokens_per_request with -32021, naming limit and use', () => {
    const limits = new LimitTracker();
    limits.setLimits(openai, { tokensPerRequest: 100 });
    const error = thrown(() => limits.reserve(openai, 101));
    expect(error.code).toBe('quota_exceeded');
    expect(error.ckpCode).toBe(-32021);
    expect(error.provider).toBe('openai');
    expect(error.message).toBe(
      'openai: tokens_per_request limit 100 exceeded: this request is an estimated 101 tokens',
    );
    expect(() => limits.reserve(openai, 100)).not.toThrow();
  });

  it('counts reserved then settled tokens against tokens_per_day, reset at local midnight', () => {
    let now = new Date(2025, 2, 10, 23, 0).getTime();
    const store = new MemoryUsageStore();
    const limits = new LimitTracker({ store, now: () => now });
    limits.setLimits(openai, { tokensPerDay: 1000 });
    const first = limits.reserve(openai, 600);
    // In flight: the 600 reserved count already.
    expect(thrown(() => limits.reserve(openai, 500)).message).toBe(
      'openai: tokens_per_day limit 1000 would be exceeded: 600 used today, this request is an estimated 500 tokens',
    );
    first.settle({ inputTokens: 200, outputTokens: 100 });
    first.settle({ inputTokens: 9999, outputTokens: 0 }); // a second settle is ignored
    expect(limits.usedToday(openai)).toBe(300);
    expect(store.get(openai, '2025-03-10')).toBe(300);
    const second = limits.reserve(openai, 700);
    second.release();
    expect(limits.usedToday(openai)).toBe(300);
    now = new Date(2025, 2, 11, 0, 0, 1).getTime();
    expect(localDay(now)).toBe('2025-03-11');
    expect(limits.usedToday(openai)).toBe(0);
    expect(() => limits.reserve(openai, 1000)).not.toThrow();
  });

  it('keeps a sliding 60 s window for requests_per_minute', () => {
    let now = 1_000_000;
    const limits = new LimitTracker({ now: () => now });
    limits.setLimits(openai, { requestsPerMinute: 2 });
    limits.reserve(openai, 1).release();
    now += 30_000;
    limits.reserve(openai, 1).release();
    now += 29_999;
    const error = thrown(() => limits.reserve(openai, 1));
    expect(error.message).toBe(
      'openai: requests_per_minute limit 2 reached: 2 requests in the last 60 s',
    );
    expect(error.ckpCode).toBe(-32021);
    expect(error.retryAfterMs).toBe(1);
    // The refused request was not counted; the first one leaves the window at exactly 60 s.
    now += 1;
    expect(limits.requestsInLastMinute(openai)).toBe(1);
    expect(() => limits.reserve(openai, 1)).not.toThrow();
    expect(() => limits.reserve(openai, 1)).toThrow(ModelError);
    // Limits of one provider never touch another.
    expect(() => limits.reserve(providerId('anthropic'), 1)).not.toThrow();
  });

  it('merges limits and refuses nonsense values', () => {
    const limits = new LimitTracker();
    limits.setLimits(openai, { tokensPerDay: 10 });
    limits.setLimits(openai, { requestsPerMinute: 5 });
    expect(limits.limitsOf(openai)).toEqual({ tokensPerDay: 10, requestsPerMinute: 5 });
    expect(() => limits.setLimits(openai, { tokensPerDay: -1 })).toThrow(
      'limit tokensPerDay must be a number >= 0',
    );
  });
});

describe('SQLite usage store', () => {
  let db: Db | undefined;
  afterEach(() => db?.close());

  it('persists day counters through the storage migrations', () => {
    db = openDatabase(':memory:', { vectors: false });
    const store = new SqliteUsageStore(db);
    store.add(openai, '2025-03-10', 120);
    store.add(openai, '2025-03-10', 30);
    store.add(openai, '2025-03-11', 5);
    expect(store.get(openai, '2025-03-10')).toBe(150);
    expect(store.get(openai, '2025-03-12')).toBe(0);
    // A second store over the same database sees the counters (and migrates nothing twice).
    expect(new SqliteUsageStore(db).get(openai, '2025-03-11')).toBe(5);
    const limits = new LimitTracker({ store, now: () => new Date(2025, 2, 10, 12).getTime() });
    limits.setLimits(openai, { tokensPerDay: 200 });
    expect(() => limits.reserve(openai, 51)).toThrow('150 used today');
  });
});
