/**
 * Fair turns on one shared engine. The app's own runs and the OpenAI endpoint's requests both
 * generate on the same loaded model; while the endpoint is on, the gate admits `limit`
 * generations at a time and, when both sources wait, hands the next place to the source that
 * did not go last, so a burst of external requests cannot starve the app's chat (or the reverse).
 * With no limit (the endpoint off) it lets every turn straight through, as before.
 */

export type TurnSource = 'app' | 'external';

const SOURCES: readonly TurnSource[] = ['app', 'external'];

interface Waiter {
  start: () => void;
  cancel: () => void;
}

export interface GateStats {
  running: Record<TurnSource, number>;
  waiting: Record<TurnSource, number>;
}

export class FairGate {
  private limit = Number.POSITIVE_INFINITY;
  private running = 0;
  private readonly runningBy: Record<TurnSource, number> = { app: 0, external: 0 };
  private readonly waiting: Record<TurnSource, Waiter[]> = { app: [], external: [] };
  private last: TurnSource | undefined;
  private readonly listeners = new Set<() => void>();

  /** Generations admitted at once; `Infinity` lets every turn through (no sharing to arbitrate). */
  setLimit(limit: number): void {
    this.limit = Math.max(1, limit);
    this.admit();
  }

  stats(): GateStats {
    return {
      running: { ...this.runningBy },
      waiting: { app: this.waiting.app.length, external: this.waiting.external.length },
    };
  }

  /** Told whenever a turn starts, waits or ends (the status bar's counts). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Runs `work` when `source`'s turn comes; a waiter whose signal aborts leaves the line. */
  async run<T>(source: TurnSource, signal: AbortSignal | undefined, work: () => Promise<T>) {
    await this.enter(source, signal);
    try {
      return await work();
    } finally {
      this.running--;
      this.runningBy[source]--;
      this.admit();
      this.changed();
    }
  }

  private enter(source: TurnSource, signal: AbortSignal | undefined): Promise<void> {
    if (this.running < this.limit && this.waitingCount() === 0) {
      this.begin(source);
      this.changed();
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const line = this.waiting[source];
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', waiter.cancel);
          resolve();
        },
        cancel: () => {
          const index = line.indexOf(waiter);
          if (index >= 0) line.splice(index, 1);
          this.changed();
          reject(signal?.reason ?? new Error('cancelled while waiting for the model'));
        },
      };
      if (signal?.aborted) return waiter.cancel();
      signal?.addEventListener('abort', waiter.cancel, { once: true });
      line.push(waiter);
      this.changed();
    });
  }

  /** Fills free places, alternating sources: the one that did not start last goes first. */
  private admit(): void {
    while (this.running < this.limit) {
      const order = this.last === 'app' ? ['external', 'app'] : ['app', 'external'];
      const source = (order as TurnSource[]).find((s) => this.waiting[s].length > 0);
      if (!source) return;
      const next = this.waiting[source].shift() as Waiter;
      this.begin(source);
      next.start();
    }
  }

  private begin(source: TurnSource): void {
    this.running++;
    this.runningBy[source]++;
    this.last = source;
  }

  private waitingCount(): number {
    return SOURCES.reduce((sum, s) => sum + this.waiting[s].length, 0);
  }

  private changed(): void {
    for (const listener of this.listeners) {
      try {
        listener();
      } catch {
        // A listener's failure must not stall the line.
      }
    }
  }
}
