/**
 * A per-model request queue: `concurrency` requests run at once, at most `maxWaiting` wait
 * behind them (more get 429 at once rather than an unbounded wait), and a waiting request
 * whose client leaves is dropped before it costs any compute.
 */
import { ApiError } from './errors.js';

export interface QueueOptions {
  concurrency?: number;
  maxWaiting?: number;
  /** Told whenever a request starts, waits or ends (the app's status bar counts them). */
  onChange?: () => void;
}

interface Waiter {
  start: () => void;
  cancel: () => void;
}

class Lane {
  running = 0;
  readonly waiting: Waiter[] = [];
}

export class RequestQueues {
  private readonly lanes = new Map<string, Lane>();
  private readonly concurrency: number;
  private readonly maxWaiting: number;
  private readonly changed: () => void;

  constructor(options: QueueOptions = {}) {
    this.concurrency = Math.max(1, options.concurrency ?? 1);
    this.maxWaiting = Math.max(0, options.maxWaiting ?? 16);
    this.changed = options.onChange ?? (() => {});
  }

  /** Requests running and waiting, per model. */
  stats(): Record<string, { running: number; waiting: number }> {
    return Object.fromEntries(
      [...this.lanes].map(([model, lane]) => [
        model,
        { running: lane.running, waiting: lane.waiting.length },
      ]),
    );
  }

  /** Runs `work` in `model`'s lane when its turn comes; rejects with 429 when the lane is full. */
  async run<T>(model: string, signal: AbortSignal, work: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(model);
    if (!lane) {
      lane = new Lane();
      this.lanes.set(model, lane);
    }
    if (lane.running < this.concurrency) {
      lane.running++;
      this.changed();
    } else {
      if (lane.waiting.length >= this.maxWaiting) {
        throw new ApiError(
          429,
          'rate_limit_error',
          'queue_full',
          `${lane.running} request(s) are running and ${lane.waiting.length} waiting for ${model}; retry shortly`,
        );
      }
      // A finishing request hands its place straight to the first waiter.
      await this.wait(lane, signal);
    }
    try {
      return await work();
    } finally {
      const next = lane.waiting.shift();
      if (next) next.start();
      else lane.running--;
      this.changed();
    }
  }

  private wait(lane: Lane, signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        start: () => {
          signal.removeEventListener('abort', waiter.cancel);
          resolve();
        },
        cancel: () => {
          const index = lane.waiting.indexOf(waiter);
          if (index >= 0) lane.waiting.splice(index, 1);
          this.changed();
          reject(new ApiError(499, 'invalid_request_error', 'client_closed', 'The client left'));
        },
      };
      if (signal.aborted) return waiter.cancel();
      signal.addEventListener('abort', waiter.cancel, { once: true });
      lane.waiting.push(waiter);
      this.changed();
    });
  }
}
