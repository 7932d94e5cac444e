import { describe, expect, it } from 'vitest';
import { ModelError } from '../../../src/main/core/models/errors.js';
import { providerId } from '../../../src/main/core/models/ids.js';
import { retryDelay, sleep, withRetry } from '../../../src/main/core/models/retry.js';
import { rejection } from './fake-provider.js';

const openai = providerId('openai');
const policy = {
  maxAttempts: 4,
  initialDelayMs: 100,
  backoff: 'exponential' as const,
  maxDelayMs: 5_000,
};

describe('retry delays', () => {
  it('uses full jitter under a growing ceiling', () => {
    const half = () => 0.5;
    expect([1, 2, 3, 4].map((n) => retryDelay(policy, n, undefined, half))).toEqual([
      50, 100, 200, 400,
    ]);
    expect(retryDelay(policy, 20, undefined, () => 0.999)).toBe(4995);
    expect(retryDelay({ ...policy, backoff: 'linear' }, 3, undefined, () => 1)).toBe(300);
    expect(retryDelay({ ...policy, backoff: 'constant' }, 3, undefined, () => 1)).toBe(100);
    expect(retryDelay(policy, 1, undefined, () => 0)).toBe(0);
  });

  it('waits at least Retry-After, capped by maxDelayMs', () => {
    const limited = (ms: number) =>
      new ModelError('rate_limited', '429', { provider: openai, retryAfterMs: ms });
    expect(retryDelay(policy, 1, limited(2_000), () => 0.5)).toBe(2_000);
    expect(retryDelay(policy, 1, limited(60_000), () => 0.5)).toBe(5_000);
  });
});

describe('withRetry', () => {
  it('retries retryable errors, honouring Retry-After, and records each wait', async () => {
    const waits: number[] = [];
    let calls = 0;
    const result = await withRetry(
      async () => {
        calls++;
        if (calls === 1)
          throw new ModelError('rate_limited', '429', { provider: openai, retryAfterMs: 1_500 });
        if (calls === 2) throw new ModelError('server_error', '500', { provider: openai });
        return 'ok';
      },
      policy,
      { random: () => 0.25, sleep: async (ms) => void waits.push(ms) },
    );
    expect(result).toBe('ok');
    expect(waits).toEqual([1_500, 50]);
  });

  it('does not retry what is not retryable, and stops after maxAttempts', async () => {
    let calls = 0;
    const auth = await rejection(
      withRetry(
        async () => {
          calls++;
          throw new ModelError('auth', 'bad key', { provider: openai });
        },
        policy,
        { sleep: async () => {} },
      ),
    );
    expect([auth.code, calls]).toEqual(['auth', 1]);
    calls = 0;
    const down = await rejection(
      withRetry(
        async () => {
          calls++;
          throw new ModelError('unreachable', 'down', { provider: openai });
        },
        policy,
        { sleep: async () => {} },
      ),
    );
    expect([down.code, calls]).toEqual(['unreachable', 4]);
  });

  it('rejects with cancelled at once when aborted during a backoff', async () => {
    const controller = new AbortController();
    const started = Date.now();
    const pending = withRetry(
      async () => {
        setTimeout(() => controller.abort(), 10);
        throw new ModelError('timeout', 'slow', { provider: openai });
      },
      { ...policy, initialDelayMs: 60_000, maxDelayMs: 60_000 },
      { random: () => 1, signal: controller.signal },
    );
    const error = await rejection(pending);
    expect(error.code).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
    // Even an injected sleep that ignores the signal cannot hold the run.
    const stubborn = new AbortController();
    const never = withRetry(
      async () => {
        setTimeout(() => stubborn.abort(), 10);
        throw new ModelError('timeout', 'slow');
      },
      policy,
      { sleep: () => new Promise(() => {}), signal: stubborn.signal },
    );
    expect((await rejection(never)).code).toBe('cancelled');
    expect((await rejection(sleep(10, AbortSignal.abort()))).code).toBe('cancelled');
  });
});
