/**
 * Finding past chats: an SQLite FTS5 index over what people and the assistant wrote (text blocks
 * only: not reasoning, not tool arguments), kept current by triggers on the run store's messages
 * table, so the runtime stays the only writer of its own tables. A session erased by "delete"
 * has its words erased from the index by the same update; hidden sessions are filtered out.
 */
import type { SearchHit } from '../../../shared/ipc-schemas.js';
import type { Db } from '../storage/index.js';
import { type Migration, migrate, prepared } from '../storage/index.js';

/** The text of a message's content (a JSON array of blocks), as SQL over one row. */
const TEXT_OF = (row: string) =>
  `(select group_concat(json_extract(b.value, '$.text'), char(10)) from json_each(${row}.content) b
    where json_extract(b.value, '$.type') = 'text')`;

const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    description: 'full-text index of chat messages',
    up: `
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
    `,
  },
];

/** Start and end of a matched word in a snippet (control characters no text contains). */
export const MATCH_START = '\u0002';
export const MATCH_END = '\u0003';

export class ChatSearch {
  constructor(
    private readonly db: Db,
    private readonly hidden: () => ReadonlySet<string>,
  ) {
    migrate(db, 'chat_search', MIGRATIONS);
  }

  /** Messages whose words start with every word of `query`, newest first; titles too. */
  find(query: string, limit = 30): SearchHit[] {
    const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) return [];
    // Each word quoted (FTS5 syntax in the query is text, not operators) and matched as a prefix.
    const match = words.map((word) => `"${word}"*`).join(' ');
    const hidden = this.hidden();
    const rows = prepared(
      this.db,
      `select f.message_id as messageId, f.session_id as sessionId, s.title as title,
           m.role as role, m.created_at as at,
           snippet(chat_search, 0, ?, ?, '…', 16) as snippet
         from chat_search f
         join messages m on m.rowid = f.rowid
         join sessions s on s.id = f.session_id
         where chat_search match ?
         order by m.created_at desc
         limit ?`,
    ).all(MATCH_START, MATCH_END, match, limit * 2) as Array<SearchHit & { role: string }>;
    const hits = rows.filter((row) => !hidden.has(row.sessionId)).slice(0, limit);
    // A conversation whose title matches comes first, even if no message does.
    const lowered = words.map((word) => word.toLowerCase());
    const titled = (
      prepared(
        this.db,
        `select s.id as sessionId, s.title as title, s.created_at as at from sessions s
           order by s.created_at desc`,
      ).all() as Array<{ sessionId: string; title: string; at: string }>
    ).filter(
      (row) =>
        !hidden.has(row.sessionId) &&
        lowered.every((word) => row.title.toLowerCase().includes(word)) &&
        !hits.some((hit) => hit.sessionId === row.sessionId),
    );
    return [
      ...titled.slice(0, 10).map((row) => ({
        sessionId: row.sessionId,
        title: row.title,
        messageId: null,
        role: null,
        at: row.at,
        snippet: row.title,
      })),
      ...hits.map((hit) => ({
        ...hit,
        role: hit.role === 'assistant' ? ('assistant' as const) : ('user' as const),
      })),
    ];
  }
}
