/**
 * What memory lets go of: CKP retention (notes past an age or a count) and the CKP 0.3.0
 * forgetting policy (notes whose strength faded are deleted, or folded into one summary note).
 */
import { randomUUID } from 'node:crypto';
import type { Db } from '../storage/index.js';
import { prepared } from '../storage/index.js';
import { foldNotes, type MemoryPolicy, type Origin, strength } from './cognition.js';
import { type DocumentUse, deleteDocument, readDocuments, usageOf } from './document-rows.js';

export interface Retention {
  maxAgeMs?: number;
  maxEntries?: number;
}

export interface ForgettingOutcome {
  forgotten: number;
  folded: number;
  into?: string;
}

/** CKP retention for notes: older than maxAge, or beyond the newest maxEntries, are deleted. */
export function applyRetention(db: Db, now: () => Date, retention: Retention): number {
  const ids = new Set<number>();
  if (retention.maxAgeMs !== undefined) {
    const cutoff = new Date(now().getTime() - retention.maxAgeMs).toISOString();
    for (const row of prepared(
      db,
      "select id from memory_documents where kind = 'note' and updated_at < ?",
    ).all(cutoff) as Array<{ id: number }>)
      ids.add(row.id);
  }
  if (retention.maxEntries !== undefined) {
    for (const row of prepared(
      db,
      "select id from memory_documents where kind = 'note' order by updated_at desc, id desc limit -1 offset ?",
    ).all(retention.maxEntries) as Array<{ id: number }>)
      ids.add(row.id);
  }
  db.transaction(() => {
    for (const id of ids) deleteDocument(db, id);
  })();
  return ids.size;
}

/**
 * Forgetting as the policy declares it: a note whose strength (halved every half-life since it
 * was last used, raised by each reuse) fell below the threshold is deleted, or with
 * `summarize` first folded into one summary note (by `summarize` when given, e.g. the session's
 * model, else each note's first line), which `storeNote` stores as the store stores any note.
 * Pinned notes and files are kept: a file is re-read from disk anyway.
 */
export async function forgetFaded(
  db: Db,
  now: () => Date,
  forgetting: NonNullable<MemoryPolicy['forgetting']>,
  storeNote: (source: string, text: string, origin: Origin) => Promise<unknown>,
  summarize?: (texts: string[]) => Promise<string>,
): Promise<ForgettingOutcome> {
  const nowMs = now().getTime();
  const rows = prepared(
    db,
    `select id, source, updated_at, origin, uses, last_used_at, pinned from memory_documents
       where kind = 'note' and pinned = 0 and source not like 'note:folded-%'`,
  ).all() as Array<DocumentUse & { id: number; source: string }>;
  const faded = rows.filter(
    (row) => strength(usageOf(row), nowMs, forgetting.halfLifeMs) < forgetting.threshold,
  );
  if (faded.length === 0) return { forgotten: 0, folded: 0 };
  let into: string | undefined;
  if (forgetting.mode === 'summarize') {
    const notes = faded.map((row) => ({
      text: readDocuments(db, { source: row.source, limit: 1 })[0]?.text ?? '',
      updatedAt: row.updated_at,
    }));
    const summary = summarize ? await summarize(notes.map((n) => n.text)) : foldNotes(notes);
    into = `note:folded-${now().toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
    await storeNote(into, summary, summarize ? 'model' : 'tool');
  }
  db.transaction(() => {
    for (const row of faded) deleteDocument(db, row.id);
  })();
  return {
    forgotten: faded.length,
    folded: into ? faded.length : 0,
    ...(into ? { into } : {}),
  };
}
