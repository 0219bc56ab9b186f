import { type Clock, TokenBucket } from './token-bucket.js';

/**
 * Measured time a tenant may spend on best-effort work whose cost its input does not tell in advance
 * (jsonrepair: 30–130 ms on a 1 KB worst case, by machine and load): a burst, then a share of the
 * event loop.
 * Work runs only while the budget is not in debt, and what it took is charged after, so a slow
 * machine or an expensive input costs the tenant more of its budget, never more of the event loop.
 */
export class TimeBudget {
  /** Milliseconds of work charged so far, as measured (for tests and benchmarks). */
  spentMs = 0;
  private readonly bucket: TokenBucket;

  /** `burstMs` of work at once, refilled at `share` ms per ms; `now` is a monotonic ms clock. */
  constructor(
    burstMs: number,
    share: number,
    private readonly now: Clock = () => performance.now(),
  ) {
    this.bucket = new TokenBucket(burstMs, share, now);
  }

  /** Whether work may start now (the budget is not in debt). */
  canRun(): boolean {
    return this.bucket.available() > 0;
  }

  /** Runs `work` and charges the time it took (also when it throws). */
  timed<T>(work: () => T): T {
    const started = this.now();
    try {
      return work();
    } finally {
      const elapsed = this.now() - started;
      this.spentMs += elapsed;
      this.bucket.spend(elapsed);
    }
  }
}
