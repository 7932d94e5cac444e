/**
 * Feeds AgentActivity from the run event stream (the runtime's RunEvent or the contract's
 * RunEventView: both carry `type` and `run_id`), so the tray and the quit drain see every run,
 * whichever surface started it: UI, CLI-over-gateway, cron or a channel.
 */
import type { AgentActivity } from './activity.js';

export interface RunLifecycleEvent {
  type: string;
  run_id: string;
}

export class RunEventTracker {
  private readonly finishers = new Map<string, () => void>();

  constructor(
    private readonly activity: AgentActivity,
    /** Cancels a run by id (the drain uses it at its deadline). */
    private readonly cancel: (runId: string) => void,
  ) {}

  onEvent(event: RunLifecycleEvent): void {
    if (event.type === 'run.started' && !this.finishers.has(event.run_id)) {
      const done = new Promise<void>((resolve) => this.finishers.set(event.run_id, resolve));
      this.activity.track({ runId: event.run_id, done, cancel: () => this.cancel(event.run_id) });
    } else if (event.type === 'run.finished') {
      this.finishers.get(event.run_id)?.();
      this.finishers.delete(event.run_id);
    }
  }
}
