/** What the assistant pushes to every UI, parsed against the contract on the way out. */

import type { AssistantEvent } from '../../../shared/ipc-schemas.js';
import { AssistantEventSchema } from '../../../shared/ipc-schemas.js';

export class AssistantEvents {
  private readonly listeners = new Set<(event: AssistantEvent) => void>();

  /** Bound, so services take it as a plain function. */
  readonly emit = (event: AssistantEvent): void => {
    // Only the contract's fields reach a UI. An event the contract does not know (a runtime
    // newer than the contract) is not shown rather than breaking the run that emitted it; so is
    // a listener's failure (a socket closing mid-send).
    const checked = AssistantEventSchema.safeParse(event);
    if (!checked.success) return;
    for (const listener of this.listeners) {
      try {
        listener(checked.data);
      } catch {
        // One surface failing must not stop the others or the run.
      }
    }
  };

  /** Returns the unsubscribe function. */
  subscribe(listener: (event: AssistantEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  clear(): void {
    this.listeners.clear();
  }
}
