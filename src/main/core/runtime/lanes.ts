/**
 * Runs of one session go one after another (a conversation has one order); different sessions
 * run side by side, up to a bound on concurrent runs.
 */
export class Lanes {
  private readonly tails = new Map<string, Promise<void>>();
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(private readonly maxConcurrent = 8) {}

  /** Runs `task` after every earlier task of `lane`, when a concurrency slot is free. */
  run<T>(lane: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(lane) ?? Promise.resolve();
    const result = previous.then(async () => {
      await this.acquire();
      try {
        return await task();
      } finally {
        this.release();
      }
    });
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(lane, tail);
    void tail.then(() => {
      if (this.tails.get(lane) === tail) this.tails.delete(lane);
    });
    return result;
  }

  get active(): number {
    return this.running;
  }

  private acquire(): Promise<void> {
    if (this.running < this.maxConcurrent) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(() => resolve()));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  }
}
