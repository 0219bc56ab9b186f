/** Milliseconds now; replaceable in tests. */
export type Clock = () => number;

/**
 * A token bucket: holds up to `capacity` units, refilled at `refillPerMs`. Best-effort work asks
 * it before running and is skipped (the caller says why) when the bucket cannot pay. Pure
 * arithmetic on each call: no timers.
 */
export class TokenBucket {
  private tokens: number;
  private refilledAt: number;

  constructor(
    readonly capacity: number,
    readonly refillPerMs: number,
    private readonly now: Clock = Date.now,
  ) {
    this.tokens = capacity;
    this.refilledAt = now();
  }

  /** Units available now (never negative). */
  available(): number {
    const now = this.now();
    if (now > this.refilledAt) {
      this.tokens = Math.min(this.capacity, this.tokens + (now - this.refilledAt) * this.refillPerMs);
      this.refilledAt = now;
    }
    return Math.max(0, this.tokens);
  }

  /** Takes `units` when available, else takes nothing and answers false. */
  take(units: number): boolean {
    if (this.available() < units) return false;
    this.tokens -= units;
    return true;
  }

  /** Pays for work already done; more than `available` leaves the bucket in debt, refilled before anything is taken again. */
  spend(units: number): void {
    this.available(); // the refill up to now first: idle time before the work must not pay off its debt
    this.tokens -= units;
  }
}
