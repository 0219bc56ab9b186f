import type { Logger } from 'pino';
import { EMPTY_SNAPSHOT, type CallLedger, type LedgerEntry, type LedgerQuery, type LedgerSnapshot } from '../ledger/types.js';
import type { StoreStats } from '../util/budget.js';

// A ledger on shared storage must never fail a request: a lookup that fails is an empty
// snapshot (fewer repairs), a write that fails is lost (fewer repairs later). Both are logged,
// at most once every 10 s so an outage does not flood the logs.

export class FailSafeLedger implements CallLedger {
  constructor(
    private readonly inner: CallLedger,
    private readonly log: Pick<Logger, 'warn'>,
    /** Shared by every scope's view: one warning per 10 s in all. */
    private readonly lastWarning = { at: 0 },
  ) {}

  forScope(scope: string): CallLedger {
    const inner = this.inner.forScope(scope);
    return inner === this.inner ? this : new FailSafeLedger(inner, this.log, this.lastWarning);
  }

  stats(): StoreStats {
    return this.inner.stats?.() ?? { rejected: 0 };
  }

  async record(entry: LedgerEntry): Promise<void> {
    try {
      await this.inner.record(entry);
    } catch (error) {
      this.warn('write', error);
    }
  }

  async lookup(query: LedgerQuery): Promise<LedgerSnapshot> {
    try {
      return await this.inner.lookup(query);
    } catch (error) {
      this.warn('lookup', error);
      return EMPTY_SNAPSHOT;
    }
  }

  async close(): Promise<void> {
    await this.inner.close?.();
  }

  private warn(what: string, error: unknown): void {
    const now = Date.now();
    if (now - this.lastWarning.at < 10_000) return;
    this.lastWarning.at = now;
    this.log.warn({ detail: error instanceof Error ? error.message : String(error) }, `call ledger ${what} failed: history repairs that need it are skipped`);
  }
}
