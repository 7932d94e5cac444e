/**
 * Versions on the message tree: a regenerated reply or an edited question is a new message
 * beside the old one (same parent). Read from the run store's read model.
 */
import type { RunStore } from '../runtime/index.js';
import type { MessageId, SessionId } from '../terms.js';
import { NotFound } from './types.js';

export class MessageVersions {
  constructor(private readonly store: RunStore) {}

  /** The messages sharing this one's parent and role, oldest first (itself included). */
  siblings(sessionId: string, messageId: string): string[] {
    return this.store.messageSiblings(sessionId as SessionId, messageId as MessageId);
  }

  /** The newest message at or below `messageId`: where that version's conversation ends. */
  newestBelow(sessionId: string, messageId: string): string {
    const id = this.store.newestBelow(sessionId as SessionId, messageId as MessageId);
    if (!id) throw new NotFound(`message ${messageId} is not part of session ${sessionId}`);
    return id;
  }
}
