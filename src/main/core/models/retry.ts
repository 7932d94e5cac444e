/**
 * Retries of a model call: exponential backoff with full jitter so many clients hitting one
 * rate-limited provider spread out instead of retrying in lockstep, at least the provider's
 * Retry-After when it gave one, and only for failures worth retrying (`error.retryable`).
 */
import { isModelError, ModelError } from './errors.js';

export type Backoff = 'exponential' | 'linear' | 'constant';

export interface RetryPolicy {
  /** Attempts in all, the first included: 1 means no retry. */
  maxAttempts: number;
  initialDelayMs: number;
  backoff: Backoff;
  /** Cap of any single wait, Retry-After included. */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY: Readonly<Required<RetryPolicy>> = Object.freeze({
  maxAttempts: 3,
  initialDelayMs: 500,
  backoff: 'exponential',
  maxDelayMs: 30_000,
});

export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

export interface RetryHooks {
  /** Returns [0, 1); injected in tests. */
  random?: () => number;
  sleep?: Sleep;
  signal?: AbortSignal;
  /** Told before each wait: the failed attempt (1-based), its error and the chosen delay. */
  onRetry?: (info: { attempt: number; error: ModelError; delayMs: number }) => void;
}

/**
 * The wait before retry number `retry` (1 = the first retry). Full jitter: uniform in
 * [0, ceiling], where the ceiling grows per the backoff. A Retry-After is a floor, because the
 * provider said any earlier attempt is refused; the cap bounds both so a run never stalls for
 * minutes on one provider.
 */
export function retryDelay(
  policy: RetryPolicy,
  retry: number,
  error: ModelError | undefined,
  random: () => number = Math.random,
): number {
  const cap = policy.maxDelayMs ?? DEFAULT_RETRY.maxDelayMs;
  const growth =
    policy.backoff === 'exponential' ? 2 ** (retry - 1) : policy.backoff === 'linear' ? retry : 1;
  const ceiling = Math.min(cap, policy.initialDelayMs * growth);
  const jittered = Math.floor(random() * ceiling);
  const floor = error?.retryAfterMs ?? 0;
  return Math.min(cap, Math.max(floor, jittered));
}

/** Resolves after `ms`; rejects with `cancelled` at once when the signal aborts. */
export const sleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(cancelled(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(cancelled(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });

export function cancelled(signal?: AbortSignal): ModelError {
  return new ModelError('cancelled', 'the request was cancelled', { cause: signal?.reason });
}

/** Normalizes anything thrown by a provider into a ModelError (a bug is not retryable). */
export function toModelError(error: unknown): ModelError {
  if (isModelError(error)) return error;
  return new ModelError(
    'bad_response',
    `unexpected failure: ${(error as Error)?.message ?? String(error)}`,
    {
      cause: error,
    },
  );
}

/**
 * Runs `attempt` until it succeeds, fails with a non-retryable error, or the attempts run out;
 * the last error is rethrown as a ModelError. Cancellation wins over everything.
 */
export async function withRetry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY,
  hooks: RetryHooks = {},
): Promise<T> {
  const wait = hooks.sleep ?? sleep;
  const random = hooks.random ?? Math.random;
  for (let n = 1; ; n++) {
    if (hooks.signal?.aborted) throw cancelled(hooks.signal);
    try {
      return await attempt(n);
    } catch (thrown) {
      const error = toModelError(thrown);
      if (hooks.signal?.aborted) throw cancelled(hooks.signal);
      if (!error.retryable || n >= policy.maxAttempts) throw error;
      const delayMs = retryDelay(policy, n, error, random);
      hooks.onRetry?.({ attempt: n, error, delayMs });
      await abortable(wait(delayMs, hooks.signal), hooks.signal);
    }
  }
}

/**
 * Races a wait against the signal, so even an injected sleep that ignores the signal cannot
 * hold a cancelled run.
 */
export function abortable(wait: Promise<void>, signal?: AbortSignal): Promise<void> {
  if (!signal) return wait;
  if (signal.aborted) return Promise.reject(cancelled(signal));
  return new Promise<void>((resolve, reject) => {
    const onAbort = (): void => reject(cancelled(signal));
    signal.addEventListener('abort', onAbort, { once: true });
    wait.then(
      () => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(toModelError(error));
      },
    );
  });
}
