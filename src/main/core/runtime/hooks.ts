/**
 * What the loop needs from memory: how a session's history is shown to the model. The other
 * dependencies of a run are contracts of their own modules: models/access.ts (the model),
 * tools/host.ts (the tools), policy/hooks.ts (policy and approvals).
 */
import type { Message } from '../../../shared/messages.js';
import type { SessionId } from '../terms.js';

/** A stored message of the run's branch, as the history hook sees it. */
export interface HistoryEntry {
  id: string;
  message: Message;
}

/**
 * What the model sees of a session's history, and what happens after each reply: memory's
 * compaction (memory/compaction.ts) shows a summary in place of older turns and summarizes in the background.
 * The stored history is never changed by it.
 */
export interface HistoryShaper {
  view(sessionId: SessionId, entries: readonly HistoryEntry[]): Message[];
  /** Called after each model reply; must not throw and must not hold the run up. */
  afterTurn?(sessionId: SessionId, entries: readonly HistoryEntry[]): void;
}
