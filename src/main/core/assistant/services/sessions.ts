/**
 * `sessions.*`: the conversations the UI lists, their tools, the branch it shows (message
 * versions included), search and export. Owns chat search and message versions; the session
 * book holds the assistant's own tables.
 */

import type { MessageId, SessionId } from '../../terms.js';
import { exportConversation } from '../export.js';
import type { RunRecords } from '../run-records.js';
import { ChatSearch } from '../search.js';
import { NotFound, type SessionsService } from '../types.js';
import { MessageVersions } from '../versions.js';
import { messageView } from '../views.js';
import { type AssistantParts, requireSession } from './parts.js';

export function sessionsService(
  { agent, book, emit }: AssistantParts,
  records: RunRecords,
): SessionsService {
  const { store } = agent;
  // A conversation's runs are not offered the tools it turned off, and their policy refuses them.
  agent.setTurnedOffTools((sessionId) => book.toolsOff(sessionId));
  const search = new ChatSearch(store, () => book.deletedIds());
  const versions = new MessageVersions(store);

  const sessionTools = (sessionId: string) => {
    requireSession(book, sessionId);
    const off = book.toolsOff(sessionId);
    return agent.offeredTools().map((tool) => ({ ...tool, enabled: !off.has(tool.name) }));
  };
  const history: SessionsService['history'] = (id, leafId) => {
    const session = book.get(id);
    const leaf = leafId ? versions.newestBelow(id, leafId) : store.latestMessage(id as SessionId);
    const messages = store.branch(leaf as MessageId | null).map((stored) => ({
      ...messageView(stored),
      siblings: versions.siblings(id, stored.id),
    }));
    return { session, messages, ...records.ofSession(id) };
  };
  /** Every change to the list (a new, renamed, deleted or branched conversation) is told. */
  const changed = <T>(value: T): T => {
    emit({ topic: 'sessions.changed' });
    return value;
  };

  return {
    listSessions: () => book.list(),
    sessionTools,
    setSessionTool(sessionId, tool, enabled) {
      requireSession(book, sessionId);
      if (!agent.offeredTools().some((offered) => offered.name === tool))
        throw new NotFound(`no tool "${tool}" is offered to this conversation`);
      book.setToolEnabled(sessionId, tool, enabled);
      return sessionTools(sessionId);
    },
    createSession: (title) => changed(book.create(title)),
    requestNewChat() {
      emit({ topic: 'ui.newChat' });
    },
    renameSession: (id, title) => changed(book.rename(id, title)),
    deleteSession(id) {
      book.delete(id);
      emit({ topic: 'sessions.changed' });
    },
    branchSession: (id, messageId) => changed(book.branch(id, messageId)),
    history,
    searchChats: (query) => search.find(query),
    exportSession: (id, format) => exportConversation(history(id), format),
  };
}
