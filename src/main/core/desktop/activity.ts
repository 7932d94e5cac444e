/**
 * The shell's view of the agent: which runs are in flight, whether it is paused, and whether it
 * is shutting down. The tray reads it, the quit path drains it (CKP STOPPING: in-flight work
 * gets a bounded time to finish, then is cancelled; a cancelled run stays resumable).
 */
import { PincerError } from '../errors.js';

/** The part of a RunHandle this needs (AgentRuntime.start returns one). */
export interface TrackedRun {
  runId: string;
  done: Promise<unknown>;
  cancel(): void;
}

/** Who asked for a run: a person at the UI/CLI, or a trigger (cron, channel). */
export type RunRequester = 'user' | 'background';

export class AgentUnavailableError extends PincerError {
  constructor(
    readonly code: 'paused' | 'stopping',
    message: string,
  ) {
    super('unavailable', message);
    this.name = 'AgentUnavailableError';
  }
}

export interface DrainReport {
  /** True when every run finished on its own before the deadline (CKP `drained`). */
  drained: boolean;
  finished: number;
  cancelled: number;
}

export class AgentActivity {
  private readonly runs = new Map<string, TrackedRun>();
  private readonly listeners = new Set<() => void>();
  private pausedFlag = false;
  private stoppingFlag = false;

  get activeRuns(): number {
    return this.runs.size;
  }

  get paused(): boolean {
    return this.pausedFlag;
  }

  get stopping(): boolean {
    return this.stoppingFlag;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Throws when a new run may not start. Pausing holds background runs only: a person who types
   * into the chat while the agent is paused is answered. Nothing starts once quitting began.
   */
  admit(origin: RunRequester): void {
    if (this.stoppingFlag) {
      throw new AgentUnavailableError('stopping', 'Pincer is quitting: no new runs start');
    }
    if (this.pausedFlag && origin === 'background') {
      throw new AgentUnavailableError(
        'paused',
        'Pincer is paused: background runs wait until it is resumed from the tray',
      );
    }
  }

  /** Follows a run until it settles (whether it succeeds, fails or is cancelled). */
  track<R extends TrackedRun>(run: R): R {
    this.runs.set(run.runId, run);
    this.changed();
    const forget = () => {
      if (this.runs.get(run.runId) === run) {
        this.runs.delete(run.runId);
        this.changed();
      }
    };
    run.done.then(forget, forget);
    return run;
  }

  setPaused(paused: boolean): void {
    if (this.pausedFlag === paused) return;
    this.pausedFlag = paused;
    this.changed();
  }

  /**
   * Stops admitting runs, waits up to `timeoutMs` for those in flight, then cancels the rest and
   * waits for them to settle (cancellation is prompt: runs honour their abort signal).
   */
  async drain(timeoutMs: number): Promise<DrainReport> {
    this.stoppingFlag = true;
    this.changed();
    const inFlight = [...this.runs.values()];
    const settled = (run: TrackedRun) => run.done.then(noop, noop);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const all = Promise.all(inFlight.map(settled)).then(() => 'all' as const);
    const first = await Promise.race([all, deadline]);
    clearTimeout(timer);
    if (first === 'all') return { drained: true, finished: inFlight.length, cancelled: 0 };
    const remaining = inFlight.filter((run) => this.runs.get(run.runId) === run);
    for (const run of remaining) run.cancel();
    await Promise.all(remaining.map(settled));
    return {
      drained: false,
      finished: inFlight.length - remaining.length,
      cancelled: remaining.length,
    };
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }
}

function noop(): void {}
