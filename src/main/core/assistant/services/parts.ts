/** What every service of the assistant is built from. */

import type { AssistantEvent } from '../../../../shared/ipc-schemas.js';
import type { Agent } from '../../agent/index.js';
import type { SessionBook } from '../sessions.js';
import { NotFound } from '../types.js';

export interface AssistantParts {
  agent: Agent;
  /** The assistant's own tables: sessions, their models and tools, settings. */
  book: SessionBook;
  emit(event: AssistantEvent): void;
  /** Registers what the assistant's `close` undoes (a subscription). */
  onClose(stop: () => unknown): void;
}

export function requireSession(book: SessionBook, id: string): void {
  if (!book.exists(id)) throw new NotFound(`no session ${id}`);
}
