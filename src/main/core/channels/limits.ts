/**
 * Processing limits of a channel (CKP §5.3 `processing`): the longest message taken, and a rate
 * per sender as a token bucket (`burst` messages at once, refilled at `messages_per_minute`).
 */
import { type ChannelDecl, ChannelError } from './types.js';

/** Without a declared limit a message still has one: the agent's input bound. */
export const DEFAULT_MAX_MESSAGE_LENGTH = 16_384;

interface Bucket {
  tokens: number;
  at: number;
}

export class ChannelLimits {
  private readonly buckets = new Map<string, Bucket>();
  readonly maxLength: number;
  private readonly perMinute: number | undefined;
  private readonly burst: number;

  constructor(
    decl: ChannelDecl,
    private readonly now: () => number = Date.now,
  ) {
    const processing = decl.spec.processing;
    this.maxLength = processing?.max_message_length ?? DEFAULT_MAX_MESSAGE_LENGTH;
    this.perMinute = processing?.rate_limit?.messages_per_minute;
    this.burst = processing?.rate_limit?.burst ?? this.perMinute ?? 1;
  }

  /** Throws a ChannelError the sender can read; takes one token when the message passes. */
  admit(senderId: string, text: string): void {
    if (text.length > this.maxLength) {
      throw new ChannelError(
        'too_large',
        `message refused: ${text.length} characters, this channel takes at most ${this.maxLength}`,
      );
    }
    if (this.perMinute === undefined) return;
    const at = this.now();
    const bucket = this.buckets.get(senderId) ?? { tokens: this.burst, at };
    const refilled = Math.min(
      this.burst,
      bucket.tokens + ((at - bucket.at) / 60_000) * this.perMinute,
    );
    if (refilled < 1) {
      this.buckets.set(senderId, { tokens: refilled, at });
      throw new ChannelError(
        'rate_limited',
        `message refused: more than ${this.perMinute} a minute; wait a little`,
      );
    }
    this.buckets.set(senderId, { tokens: refilled - 1, at });
    // Senders who went quiet are forgotten, so the map stays as small as the active senders.
    if (this.buckets.size > 10_000) this.forgetFull(at);
  }

  private forgetFull(at: number): void {
    for (const [id, bucket] of this.buckets) {
      if (bucket.tokens + ((at - bucket.at) / 60_000) * (this.perMinute ?? 0) >= this.burst)
        this.buckets.delete(id);
    }
  }
}
