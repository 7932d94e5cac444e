/**
 * The run store's read model for the surfaces that look back over conversations: a full-text
 * index of what people and the assistant wrote (text blocks only: not reasoning, not tool
 * arguments) and the versions on the message tree. The index is the store's own schema, kept
 * current by triggers on its messages table (an erased session's words go with the same
 * update), so no other module reaches under the runtime's tables.
 */
import type { Db } from '../storage/index.js';
import { type Migration, prepared } from '../storage/index.js';
import type { MessageId, SessionId } from '../terms.js';

/** The text of a message's content (a JSON array of blocks), as SQL over one row. */
const TEXT_OF = (row: string) =>
  `(select group_concat(json_extract(b.value, '$.text'), char(10)) from json_each(${row}.content) b
    where json_extract(b.value, '$.type') = 'text')`;

const SEARCH_SCHEMA = `
  create virtual table chat_search using fts5(
    text, message_id unindexed, session_id unindexed,
    tokenize = 'unicode61 remove_diacritics 2'
  );
  insert into chat_search (rowid, text, message_id, session_id)
    select m.rowid, coalesce(${TEXT_OF('m')}, ''), m.id, m.session_id from messages m;
  create trigger chat_search_insert after insert on messages begin
    insert into chat_search (rowid, text, message_id, session_id)
      values (new.rowid, coalesce(${TEXT_OF('new')}, ''), new.id, new.session_id);
  end;
  create trigger chat_search_update after update of content on messages begin
    delete from chat_search where rowid = old.rowid;
    insert into chat_search (rowid, text, message_id, session_id)
      values (new.rowid, coalesce(${TEXT_OF('new')}, ''), new.id, new.session_id);
  end;
  create trigger chat_search_delete after delete on messages begin
    delete from chat_search where rowid = old.rowid;
  end;
`;

/**
 * The index's own migrations, under the name the assistant gave them when it installed the
 * index itself, so a database it indexed is already current. Applied when the read model is
 * first asked for search, not with the run store: every message written once the index exists
 * costs an FTS insert (about a millisecond a turn on a busy disk), which a process that never
 * searches (the CLI, a channel daemon, a test) should not pay on a data dir never indexed.
 */
export const SEARCH_MIGRATIONS: readonly Migration[] = [
  { version: 1, description: 'full-text index of chat messages', up: SEARCH_SCHEMA },
];

/** Start and end of a matched word in a snippet (control characters no text contains). */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

export interface MessageHit {
  messageId: MessageId;
  sessionId: SessionId;
  /** The title of the message's session. */
  title: string;
  role: 'user' | 'assistant';
  at: string;
  /** The matched passage, each matched word between MATCH_START and MATCH_END. */
  snippet: string;
}

/**
 * Messages whose words start with every one of `words`, newest first. Each word is quoted
 * (FTS5 syntax in them is text, not operators) and matched as a prefix.
 */
export function searchMessages(db: Db, words: readonly string[], limit: number): MessageHit[] {
  if (words.length === 0) return [];
  const match = words.map((word) => `"${word.replaceAll('"', '""')}"*`).join(' ');
  return prepared(
    db,
    `select f.message_id as messageId, f.session_id as sessionId, s.title as title,
         m.role as role, m.created_at as at,
         snippet(chat_search, 0, ?, ?, '…', 16) as snippet
       from chat_search f
       join messages m on m.rowid = f.rowid
       join sessions s on s.id = f.session_id
       where chat_search match ?
       order by m.created_at desc
       limit ?`,
  ).all(MATCH_START, MATCH_END, match, limit) as MessageHit[];
}

/** Every session's title, newest session first. */
export function sessionTitles(db: Db): Array<{ sessionId: SessionId; title: string; at: string }> {
  return prepared(
    db,
    `select s.id as sessionId, s.title as title, s.created_at as at from sessions s
       order by s.created_at desc`,
  ).all() as Array<{ sessionId: SessionId; title: string; at: string }>;
}

/** The messages sharing this one's parent and role, oldest first (itself included). */
export function messageSiblings(db: Db, sessionId: SessionId, messageId: MessageId): MessageId[] {
  const rows = prepared(
    db,
    `select s.id from messages m join messages s
         on s.session_id = m.session_id and s.role = m.role
        and (s.parent_id = m.parent_id or (s.parent_id is null and m.parent_id is null))
       where m.id = ? and m.session_id = ? order by s.id`,
  ).all(messageId, sessionId) as Array<{ id: MessageId }>;
  return rows.map((row) => row.id);
}

/**
 * The newest message at or below `messageId` (where that version's conversation ends);
 * undefined when the message is not part of the session.
 */
export function newestBelow(
  db: Db,
  sessionId: SessionId,
  messageId: MessageId,
): MessageId | undefined {
  const row = prepared(
    db,
    `with recursive below(id) as (
         select id from messages where id = ? and session_id = ?
         union all
         select m.id from messages m join below on m.parent_id = below.id
       ) select id from below order by id desc limit 1`,
  ).get(messageId, sessionId) as { id: MessageId } | undefined;
  return row?.id;
}
