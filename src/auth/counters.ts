// Counters behind rate limits and budgets: fixed windows keyed by the caller. Memory by default
// (per instance); src/state/redis-counters.ts implements the same seam so limits hold across
// every instance sharing one Redis.

export interface CounterStore {
  /** Adds `by` to the counter (created with the given TTL) and returns the new value. */
  add(key: string, by: number, ttlMs: number): Promise<number>;
  get(key: string): Promise<number>;
  close?(): Promise<void>;
}

interface Slot {
  value: number;
  expiresAt: number;
}

export class MemoryCounterStore implements CounterStore {
  private readonly slots = new Map<string, Slot>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async add(key: string, by: number, ttlMs: number): Promise<number> {
    const now = this.now();
    this.sweep(now);
    const slot = this.live(key, now) ?? { value: 0, expiresAt: now + ttlMs };
    slot.value += by;
    this.slots.set(key, slot);
    return slot.value;
  }

  async get(key: string): Promise<number> {
    return this.live(key, this.now())?.value ?? 0;
  }

  private live(key: string, now: number): Slot | undefined {
    const slot = this.slots.get(key);
    if (slot && slot.expiresAt <= now) {
      this.slots.delete(key);
      return undefined;
    }
    return slot;
  }

  /** Expired windows are dropped at most once a second, so the map stays bounded by live windows. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [key, slot] of this.slots) if (slot.expiresAt <= now) this.slots.delete(key);
  }

  async close(): Promise<void> {
    this.slots.clear();
  }
}
