/**
 * How an event channel's firings share its concurrency (CKP §5.3 trigger): at most `max_parallel`
 * executions at once, never more (MUST NOT); when saturated, `skip` drops the new firing and
 * `queue` waits for a slot in arrival order. `allow` admits overlapping executions up to the
 * bound, and since the bound may not be exceeded, a firing beyond it waits as with `queue`.
 */
export type OverlapPolicy = 'skip' | 'queue' | 'allow';
export type Admission = 'started' | 'queued' | 'skipped';

/** Waiting firings beyond this are dropped (and counted): a stalled run cannot grow memory. */
export const MAX_QUEUED = 64;

export class TriggerGate {
  private active = 0;
  private readonly waiting: Array<() => Promise<unknown>> = [];
  private readonly idleWaiters: Array<() => void> = [];
  private readonly slotWaiters: Array<() => void> = [];

  constructor(
    readonly maxParallel: number,
    readonly policy: OverlapPolicy,
    private readonly maxQueued = MAX_QUEUED,
  ) {}

  get running(): number {
    return this.active;
  }

  get queued(): number {
    return this.waiting.length;
  }

  submit(job: () => Promise<unknown>): Admission {
    if (this.active < this.maxParallel) {
      this.launch(job);
      return 'started';
    }
    if (this.policy === 'skip' || this.waiting.length >= this.maxQueued) return 'skipped';
    this.waiting.push(job);
    return 'queued';
  }

  /** Resolves once nothing runs and nothing waits. */
  idle(): Promise<void> {
    if (this.active === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * Resolves once a firing submitted now would start (a queue consumer takes a message only
   * then, so the ones beyond `max_parallel` wait on the server, not in memory).
   */
  slot(): Promise<void> {
    if (this.active < this.maxParallel) return Promise.resolve();
    return new Promise((resolve) => this.slotWaiters.push(resolve));
  }

  /** Forgets the firings that have not started. */
  clearQueue(): number {
    const dropped = this.waiting.length;
    this.waiting.length = 0;
    this.settleIdle();
    return dropped;
  }

  private launch(job: () => Promise<unknown>): void {
    this.active++;
    void Promise.resolve()
      .then(job)
      .catch(() => undefined)
      .finally(() => {
        this.active--;
        const next = this.waiting.shift();
        if (next) this.launch(next);
        else {
          for (const resolve of this.slotWaiters.splice(0)) resolve();
          this.settleIdle();
        }
      });
  }

  private settleIdle(): void {
    if (this.active > 0 || this.waiting.length > 0) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
