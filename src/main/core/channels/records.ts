/**
 * What channels keep in the profile database: which session each chat talks in, pairing codes
 * (pending and approved), and which run a queued message started until that message is
 * acknowledged (so a delivery of it again does not run it twice). The channels module owns these
 * tables and their migrations;
 * `pincer channels pair CODE` writes an approval here and a running daemon reads it on the
 * sender's next message.
 */
import { randomInt } from 'node:crypto';
import type { RunStore } from '../runtime/index.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';
import type { RunId, SessionId } from '../terms.js';

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'channel chats and their sessions; pairing codes',
    up: `
      create table channel_chats (
        channel text not null,
        chat_id text not null,
        session_id text not null,
        created_at text not null,
        primary key (channel, chat_id)
      );
      create table channel_pairings (
        channel text not null,
        user_id text not null,
        code text not null,
        state text not null check (state in ('pending', 'approved')),
        created_at text not null,
        expires_at text not null,
        approved_by text,
        primary key (channel, user_id)
      );
      create index channel_pairings_by_code on channel_pairings(code);
    `,
  },
  {
    version: 2,
    description: 'queued messages and the runs they started, until acknowledged',
    up: `
      create table channel_deliveries (
        channel text not null,
        message text not null,
        published text not null,
        run_id text not null,
        created_at text not null,
        primary key (channel, message)
      );
    `,
  },
];

/** Letters and digits that cannot be misread for one another (no 0/O, 1/I/L). */
const CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
const CODE_LENGTH = 8;

export interface PendingPairing {
  channel: string;
  userId: string;
  code: string;
  createdAt: string;
  expiresAt: string;
}

export type PairingAsk =
  | { kind: 'approved' }
  | { kind: 'code'; code: string; expiresAt: string; fresh: boolean }
  | { kind: 'full' };

export type PairResult =
  | { kind: 'paired'; channel: string; userId: string }
  | { kind: 'unknown' }
  | { kind: 'expired' };

export class ChannelRecords {
  constructor(private readonly db: Db) {
    migrate(db, 'channels', MIGRATIONS);
  }

  /** The session of a chat, created (through the run store) on its first message. */
  sessionOf(store: RunStore, channel: string, chatId: string, title: string): SessionId {
    const row = prepared(
      this.db,
      'select session_id from channel_chats where channel = ? and chat_id = ?',
    ).get(channel, chatId) as { session_id: SessionId } | undefined;
    if (row && store.hasSession(row.session_id)) return row.session_id;
    const sessionId = store.createSession(title);
    prepared(
      this.db,
      `insert into channel_chats (channel, chat_id, session_id, created_at) values (?, ?, ?, ?)
         on conflict (channel, chat_id) do update set session_id = excluded.session_id`,
    ).run(channel, chatId, sessionId, new Date().toISOString());
    return sessionId;
  }

  /**
   * The run a queued message started, if it is recorded and not yet acknowledged. `published`
   * tells the message from another that took its place after its stream was made anew.
   */
  runOfDelivery(channel: string, message: string, published: string): RunId | undefined {
    const row = prepared(
      this.db,
      'select run_id from channel_deliveries where channel = ? and message = ? and published = ?',
    ).get(channel, message, published) as { run_id: RunId } | undefined;
    return row?.run_id;
  }

  recordDelivery(channel: string, message: string, published: string, runId: RunId): void {
    prepared(
      this.db,
      `insert into channel_deliveries (channel, message, published, run_id, created_at)
         values (?, ?, ?, ?, ?)
         on conflict (channel, message) do update set published = excluded.published,
           run_id = excluded.run_id, created_at = excluded.created_at`,
    ).run(channel, message, published, runId, new Date().toISOString());
  }

  /** The server confirmed the acknowledgement: the message cannot come again. */
  forgetDelivery(channel: string, message: string): void {
    prepared(this.db, 'delete from channel_deliveries where channel = ? and message = ?').run(
      channel,
      message,
    );
  }

  /** Rows whose message never came back (its stream was deleted) go after `before`. */
  pruneDeliveries(channel: string, before: Date): number {
    return prepared(
      this.db,
      'delete from channel_deliveries where channel = ? and created_at < ?',
    ).run(channel, before.toISOString()).changes;
  }

  /**
   * An unknown sender asks to pair: the same code while it is valid, a new one once it expired,
   * none while `maxPending` other codes wait (codes are never handed out without bound).
   */
  askPairing(
    channel: string,
    userId: string,
    rules: { expiryMinutes: number; maxPending: number },
    now = new Date(),
  ): PairingAsk {
    return this.db.transaction((): PairingAsk => {
      const row = prepared(
        this.db,
        'select * from channel_pairings where channel = ? and user_id = ?',
      ).get(channel, userId) as RawPairing | undefined;
      if (row?.state === 'approved') return { kind: 'approved' };
      if (row && Date.parse(row.expires_at) > now.getTime()) {
        return { kind: 'code', code: row.code, expiresAt: row.expires_at, fresh: false };
      }
      const waiting = this.pending(channel, now).length;
      if (waiting >= rules.maxPending) return { kind: 'full' };
      const code = newCode();
      const expiresAt = new Date(now.getTime() + rules.expiryMinutes * 60_000).toISOString();
      prepared(
        this.db,
        `insert into channel_pairings (channel, user_id, code, state, created_at, expires_at)
           values (?, ?, ?, 'pending', ?, ?)
           on conflict (channel, user_id) do update set code = excluded.code,
             created_at = excluded.created_at, expires_at = excluded.expires_at`,
      ).run(channel, userId, code, now.toISOString(), expiresAt);
      return { kind: 'code', code, expiresAt, fresh: true };
    })();
  }

  isPaired(channel: string, userId: string): boolean {
    const row = prepared(
      this.db,
      `select 1 from channel_pairings where channel = ? and user_id = ? and state = 'approved'`,
    ).get(channel, userId);
    return row !== undefined;
  }

  /** Approves a pending code (case and spaces do not matter); an expired code pairs no one. */
  pair(code: string, by: string, now = new Date(), channel?: string): PairResult {
    const wanted = code.replace(/\s+/g, '').toUpperCase();
    const row = prepared(
      this.db,
      `select * from channel_pairings where code = ? and state = 'pending'${channel ? ' and channel = ?' : ''}`,
    ).get(...(channel ? [wanted, channel] : [wanted])) as RawPairing | undefined;
    if (!row) return { kind: 'unknown' };
    if (Date.parse(row.expires_at) <= now.getTime()) return { kind: 'expired' };
    prepared(
      this.db,
      `update channel_pairings set state = 'approved', approved_by = ? where channel = ? and user_id = ?`,
    ).run(by, row.channel, row.user_id);
    return { kind: 'paired', channel: row.channel, userId: row.user_id };
  }

  /**
   * Refuses a pending code: the row goes, so the sender is a stranger again (a new message gets a
   * new code). False when no pending code matches.
   */
  reject(code: string): boolean {
    const wanted = code.replace(/\s+/g, '').toUpperCase();
    const result = prepared(
      this.db,
      `delete from channel_pairings where code = ? and state = 'pending'`,
    ).run(wanted);
    return result.changes > 0;
  }

  /** Codes still waiting (not expired), oldest first; all channels unless one is named. */
  pending(channel?: string, now = new Date()): PendingPairing[] {
    const rows = prepared(
      this.db,
      `select * from channel_pairings where state = 'pending' and expires_at > ?${channel ? ' and channel = ?' : ''} order by created_at`,
    ).all(...(channel ? [now.toISOString(), channel] : [now.toISOString()])) as RawPairing[];
    return rows.map((row) => ({
      channel: row.channel,
      userId: row.user_id,
      code: row.code,
      createdAt: row.created_at,
      expiresAt: row.expires_at,
    }));
  }
}

interface RawPairing {
  channel: string;
  user_id: string;
  code: string;
  state: 'pending' | 'approved';
  created_at: string;
  expires_at: string;
}

function newCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}
