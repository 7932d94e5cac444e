/**
 * Finding past chats: the run store's full-text index over what people and the assistant wrote
 * (see runtime/read-model.ts), with hidden sessions filtered out and matching titles first.
 */
import type { SearchHit } from '../../../shared/ipc-schemas.js';
import type { RunStore } from '../runtime/index.js';

export class ChatSearch {
  constructor(
    private readonly store: RunStore,
    private readonly hidden: () => ReadonlySet<string>,
  ) {
    store.indexForSearch();
  }

  /** Messages whose words start with every word of `query`, newest first; titles too. */
  find(query: string, limit = 30): SearchHit[] {
    const words = query.match(/[\p{L}\p{N}_]+/gu) ?? [];
    if (words.length === 0) return [];
    const hidden = this.hidden();
    const rows = this.store.searchMessages(words, limit * 2);
    const hits = rows.filter((row) => !hidden.has(row.sessionId)).slice(0, limit);
    // A conversation whose title matches comes first, even if no message does.
    const lowered = words.map((word) => word.toLowerCase());
    const titled = this.store
      .sessionTitles()
      .filter(
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
      ...hits,
    ];
  }
}
