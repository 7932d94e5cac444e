/**
 * Versions on the message tree: a regenerated reply or an edited question is a new message
 * beside the old one (same parent). Read-only queries over the run store's messages.
 */
import { type Db, prepared } from '../storage/index.js';
import { NotFound } from './types.js';

export class MessageVersions {
  constructor(private readonly db: Db) {}

  /** The messages sharing this one's parent and role, oldest first (itself included). */
  siblings(sessionId: string, messageId: string): string[] {
    const rows = prepared(
      this.db,
      `select s.id from messages m join messages s
           on s.session_id = m.session_id and s.role = m.role
          and (s.parent_id = m.parent_id or (s.parent_id is null and m.parent_id is null))
         where m.id = ? and m.session_id = ? order by s.id`,
    ).all(messageId, sessionId) as Array<{ id: string }>;
    return rows.map((row) => row.id);
  }

  /** The newest message at or below `messageId`: where that version's conversation ends. */
  newestBelow(sessionId: string, messageId: string): string {
    const row = prepared(
      this.db,
      `with recursive below(id) as (
           select id from messages where id = ? and session_id = ?
           union all
           select m.id from messages m join below on m.parent_id = below.id
         ) select id from below order by id desc limit 1`,
    ).get(messageId, sessionId) as { id: string } | undefined;
    if (!row) throw new NotFound(`message ${messageId} is not part of session ${sessionId}`);
    return row.id;
  }
}
