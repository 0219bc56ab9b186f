import type { Logger } from 'pino';
import type { CounterStore } from '../auth/counters.js';
import type { GatewayConfig } from '../config/schema.js';
import type { CallLedger } from '../ledger/types.js';
import type { ResponseStore } from './response-store.js';
import type { StoreBudget } from '../util/budget.js';
import type { RedisClient } from './redis-client.js';

// What every state backend (memory in index.ts, Redis in redis-state.ts) is made of, and the
// stores' byte budgets read from config.

export interface GatewayState {
  ledger: CallLedger;
  counters: CounterStore;
  responseStore: ResponseStore;
  redis?: RedisClient;
  close(): Promise<void>;
}

/** The call ledger's byte budget from config, with its oversize warning. */
export function ledgerBudget(config: GatewayConfig, log: Pick<Logger, 'warn'>): StoreBudget {
  const { maxBytes, maxEntryBytes } = config.ledger;
  return { maxBytes, maxEntryBytes, onOversize: oversizeWarning(log, 'call ledger', 'ledger.maxEntryBytes') };
}

/** The Responses store's byte budget from config, with its oversize warning. */
export function responsesBudget(config: GatewayConfig, log: Pick<Logger, 'warn'>): StoreBudget {
  const { maxBytes, maxEntryBytes } = config.responses;
  return { maxBytes, maxEntryBytes, onOversize: oversizeWarning(log, 'Responses store', 'responses.maxEntryBytes') };
}

/** At most one warning per store every 10 s: a client sending huge bodies must not flood the logs. */
function oversizeWarning(log: Pick<Logger, 'warn'>, store: string, key: string): (bytes: number, limit: number) => void {
  let last = 0;
  let skipped = 0;
  return (bytes, limit) => {
    const now = Date.now();
    if (now - last < 10_000) {
      skipped += 1;
      return;
    }
    last = now;
    log.warn({ bytes, limit, alsoSkippedSinceLastWarning: skipped }, `${store}: an entry over ${key} was not stored (a later request cannot find it)`);
    skipped = 0;
  };
}
