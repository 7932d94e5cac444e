/**
 * A circuit breaker (CKP §5.9 `failure.circuit_breaker`): after `threshold` failures in a row
 * the swarm stops sending work for `resetMs`, then lets one task through to test the water.
 */
export class CircuitBreaker {
  private failures = 0;
  private openedAt: number | undefined;

  constructor(
    private readonly threshold: number,
    private readonly resetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a task may be sent now. */
  allows(): boolean {
    if (this.openedAt === undefined) return true;
    if (this.now() - this.openedAt >= this.resetMs) {
      // Half open: one trial; a failure opens it again at once.
      this.openedAt = undefined;
      this.failures = this.threshold - 1;
      return true;
    }
    return false;
  }

  succeeded(): void {
    this.failures = 0;
    this.openedAt = undefined;
  }

  failed(): void {
    this.failures++;
    if (this.failures >= this.threshold) this.openedAt = this.now();
  }
}
