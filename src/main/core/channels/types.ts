/** What every channel shares: its declaration, its status, and the errors it reports. */

import type { ChannelSpec, Primitive } from '../ckp/index.js';
import { type ErrorCategory, PincerError } from '../errors.js';

/** A Channel primitive of the manifest, as the loader resolved it. */
export type ChannelDecl = Primitive<'Channel'>;
export type ChannelSettings = NonNullable<ChannelSpec['x-pincer']>;
export type Role = 'admin' | 'user' | 'viewer';

/** One surface of the agent that people or systems reach it through. */
export interface Channel {
  readonly name: string;
  readonly type: string;
  /** Resolves once it listens (or polls); rejects with a ChannelError when it cannot. */
  start(): Promise<void>;
  /** Stops taking new work; work already started continues on the agent. */
  stop(): Promise<void>;
  status(): ChannelStatus;
}

export interface ChannelStatus {
  name: string;
  type: string;
  state: 'stopped' | 'running' | 'failed';
  /** When the last message (or firing) arrived. */
  lastMessageAt: string | null;
  lastError: string | null;
  /** Runs this channel started since it started. */
  runs: number;
  /** Scheduled firings missed while the machine slept or the agent was paused. */
  missed: number;
  /** Where it listens, its next firing, ... (shown as is). */
  detail: Record<string, string>;
}

export type ChannelErrorCode =
  | 'not_configured'
  | 'bad_signature'
  | 'stale'
  | 'replayed'
  | 'too_large'
  | 'bad_request'
  | 'refused'
  | 'rate_limited'
  | 'paused'
  | 'unreachable'
  | 'already_running';

const CATEGORY: Record<ChannelErrorCode, ErrorCategory> = {
  not_configured: 'internal',
  bad_signature: 'unauthenticated',
  stale: 'unauthenticated',
  replayed: 'conflict',
  too_large: 'too_large',
  bad_request: 'invalid_request',
  refused: 'denied',
  rate_limited: 'rate_limited',
  paused: 'unavailable',
  unreachable: 'unavailable',
  already_running: 'conflict',
};

export class ChannelError extends PincerError {
  constructor(
    readonly code: ChannelErrorCode,
    message: string,
  ) {
    super(CATEGORY[code], message);
    this.name = 'ChannelError';
  }
}

/** The Bot API, webhook and cron channels ask the hub for a run through this. */
export interface Inbound {
  /** The platform's id of the sender. */
  userId: string;
  /** The conversation: one session per chat. */
  chatId: string;
  text: string;
  /**
   * Work the message brings besides its text (a file to fetch), done only once the sender is let
   * in and the text passed the limits and the screen; resolves with the text the run gets. A
   * ChannelError it throws is the reply.
   */
  expand?: (role: Role) => Promise<string>;
}

export function settingsOf(decl: ChannelDecl): ChannelSettings {
  return decl.spec['x-pincer'] ?? {};
}
