/**
 * Per-provider limits (config `tokens_per_day`, `tokens_per_request`, `requests_per_minute`)
 * enforced BEFORE a request leaves the machine: the request's tokens are estimated and reserved,
 * then settled against the usage the provider reports. A violation is a typed `quota_exceeded`
 * ModelError (CKP -32021) so the router can move to another provider instead of paying.
 */
import type { ContentBlock } from '../../../shared/messages.js';
import { ModelError } from './errors.js';
import type { ProviderId } from './ids.js';
import type { ModelRequest } from './types.js';

export interface ProviderLimits {
  tokensPerDay?: number;
  tokensPerRequest?: number;
  requestsPerMinute?: number;
}

/** Daily token counters, keyed by provider and local date (`YYYY-MM-DD`). */
export interface UsageStore {
  get(provider: ProviderId, day: string): number;
  add(provider: ProviderId, day: string, tokens: number): void;
}

export class MemoryUsageStore implements UsageStore {
  private readonly counters = new Map<string, number>();

  get(provider: ProviderId, day: string): number {
    return this.counters.get(`${provider}\u0000${day}`) ?? 0;
  }

  add(provider: ProviderId, day: string, tokens: number): void {
    const key = `${provider}\u0000${day}`;
    this.counters.set(key, (this.counters.get(key) ?? 0) + tokens);
  }
}

/** The chars-per-token ratio of English text and JSON in common tokenizers; an estimate only. */
const CHARS_PER_TOKEN = 4;
/**
 * Images are billed by resolution, not by base64 length (which would count a photo as hundreds
 * of thousands of tokens); a flat figure near a typical 1 megapixel image keeps estimates sane.
 */
export const IMAGE_TOKEN_ESTIMATE = 1_000;

/** Estimated input tokens: chars/4 over system, messages and tool definitions. */
export function estimateInputTokens(request: ModelRequest): number {
  let chars = request.system?.length ?? 0;
  let images = 0;
  const count = (block: ContentBlock): void => {
    switch (block.type) {
      case 'text':
      case 'reasoning':
        chars += block.text.length;
        break;
      case 'tool_use':
        chars += block.name.length + JSON.stringify(block.input).length;
        break;
      case 'tool_result':
        if (typeof block.content === 'string') chars += block.content.length;
        else block.content.forEach(count);
        break;
      case 'image':
        images++;
        break;
    }
  };
  for (const message of request.messages) message.content.forEach(count);
  for (const tool of request.tools ?? []) {
    chars += tool.name.length + (tool.description?.length ?? 0);
    chars += JSON.stringify(tool.parameters).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKEN_ESTIMATE;
}

/**
 * Input estimate plus the requested output budget. Without `maxTokens` the output is unknown
 * and counted as zero here; settlement charges what the reply really used.
 */
export function estimateRequestTokens(request: ModelRequest): number {
  return estimateInputTokens(request) + (request.maxTokens ?? 0);
}

/** The local calendar date of an epoch-millisecond instant: daily limits reset at local midnight. */
export function localDay(epochMs: number): string {
  const date = new Date(epochMs);
  const month = String(date.getMonth() + 1).padStart(2, '0');
  const day = String(date.getDate()).padStart(2, '0');
  return `${date.getFullYear()}-${month}-${day}`;
}

export const MINUTE_MS = 60_000;

/** One admitted request: settle it with real usage, or release it when no usage is known. */
export interface Reservation {
  readonly provider: ProviderId;
  readonly estimatedTokens: number;
  readonly day: string;
  /** Charges the reported tokens (input + output) to the day instead of the estimate. */
  settle(usage: { inputTokens: number; outputTokens: number }): void;
  /** Drops the reservation without charging tokens (the request failed before any output). */
  release(): void;
}

export interface LimitTrackerOptions {
  store?: UsageStore;
  /** Epoch milliseconds; injected in tests. */
  now?: () => number;
}

export class LimitTracker {
  private readonly limits = new Map<ProviderId, ProviderLimits>();
  /** Start times of requests still inside the sliding minute, oldest first. */
  private readonly recent = new Map<ProviderId, number[]>();
  /** Tokens reserved by requests in flight, per provider and day. */
  private readonly inFlight = new Map<string, number>();
  private readonly store: UsageStore;
  private readonly now: () => number;

  constructor(options: LimitTrackerOptions = {}) {
    this.store = options.store ?? new MemoryUsageStore();
    this.now = options.now ?? Date.now;
  }

  /** Sets (merging over earlier values) the limits of a provider; `undefined` keeps a value. */
  setLimits(provider: ProviderId, limits: ProviderLimits): void {
    for (const [key, value] of Object.entries(limits)) {
      if (value !== undefined && !(Number.isFinite(value) && value >= 0)) {
        throw new ModelError('invalid_request', `limit ${key} must be a number >= 0`, { provider });
      }
    }
    const merged: ProviderLimits = { ...this.limits.get(provider) };
    if (limits.tokensPerDay !== undefined) merged.tokensPerDay = limits.tokensPerDay;
    if (limits.tokensPerRequest !== undefined) merged.tokensPerRequest = limits.tokensPerRequest;
    if (limits.requestsPerMinute !== undefined) merged.requestsPerMinute = limits.requestsPerMinute;
    this.limits.set(provider, merged);
  }

  limitsOf(provider: ProviderId): ProviderLimits {
    return { ...this.limits.get(provider) };
  }

  /** Tokens charged today (settled plus reserved in flight). */
  usedToday(provider: ProviderId): number {
    const day = localDay(this.now());
    return this.store.get(provider, day) + (this.inFlight.get(key(provider, day)) ?? 0);
  }

  /** Requests started in the last 60 s. */
  requestsInLastMinute(provider: ProviderId): number {
    return this.window(provider, this.now()).length;
  }

  /**
   * Admits a request or throws `quota_exceeded` naming the limit, its value and current use.
   * Checks the three limits before recording anything, so a refused request costs nothing.
   */
  reserve(provider: ProviderId, request: ModelRequest | number): Reservation {
    const estimate = typeof request === 'number' ? request : estimateRequestTokens(request);
    const now = this.now();
    const day = localDay(now);
    const limits = this.limits.get(provider) ?? {};
    if (limits.tokensPerRequest !== undefined && estimate > limits.tokensPerRequest) {
      throw quota(
        provider,
        `tokens_per_request limit ${limits.tokensPerRequest} exceeded: this request is an estimated ${estimate} tokens`,
      );
    }
    const used = this.store.get(provider, day) + (this.inFlight.get(key(provider, day)) ?? 0);
    if (limits.tokensPerDay !== undefined && used + estimate > limits.tokensPerDay) {
      throw quota(
        provider,
        `tokens_per_day limit ${limits.tokensPerDay} would be exceeded: ${used} used today, this request is an estimated ${estimate} tokens`,
      );
    }
    const window = this.window(provider, now);
    if (limits.requestsPerMinute !== undefined && window.length >= limits.requestsPerMinute) {
      const oldest = window[0] ?? now;
      throw quota(
        provider,
        `requests_per_minute limit ${limits.requestsPerMinute} reached: ${window.length} requests in the last 60 s`,
        oldest + MINUTE_MS - now,
      );
    }
    window.push(now);
    this.addInFlight(provider, day, estimate);
    let open = true;
    const close = (): boolean => {
      if (!open) return false;
      open = false;
      this.addInFlight(provider, day, -estimate);
      return true;
    };
    return {
      provider,
      estimatedTokens: estimate,
      day,
      settle: (usage) => {
        // Charged to the day the request was admitted on, the day its estimate was checked against.
        if (close()) this.store.add(provider, day, usage.inputTokens + usage.outputTokens);
      },
      release: () => {
        close();
      },
    };
  }

  private window(provider: ProviderId, now: number): number[] {
    let times = this.recent.get(provider);
    if (!times) {
      times = [];
      this.recent.set(provider, times);
    }
    // Sliding window: a request started exactly 60 s ago no longer counts.
    while (times.length > 0 && (times[0] ?? 0) <= now - MINUTE_MS) times.shift();
    return times;
  }

  private addInFlight(provider: ProviderId, day: string, tokens: number): void {
    const k = key(provider, day);
    const next = (this.inFlight.get(k) ?? 0) + tokens;
    if (next === 0) this.inFlight.delete(k);
    else this.inFlight.set(k, next);
  }
}

function key(provider: ProviderId, day: string): string {
  return `${provider}\u0000${day}`;
}

function quota(provider: ProviderId, message: string, retryAfterMs?: number): ModelError {
  return new ModelError(
    'quota_exceeded',
    message,
    retryAfterMs === undefined ? { provider } : { provider, retryAfterMs },
  );
}
