import type { Logger } from 'pino';
import { MemoryCounterStore, type CounterStore } from '../auth/counters.js';
import type { GatewayConfig } from '../config/schema.js';
import { MemoryLedger } from '../ledger/memory.js';
import type { CallLedger } from '../ledger/types.js';
import { createMemoryResponseStore, type ResponseStore } from '../responses/store.js';
import type { StoreBudget } from './budget.js';
import type { Readiness } from '../routes/health.js';
import type { RedisClient } from './redis-client.js';

// Where the gateway keeps state: in memory (default, one instance) or on Redis (several
// instances behind a load balancer share the call ledger, the Responses store and the
// rate-limit / budget counters).

export interface GatewayState {
  ledger: CallLedger;
  counters: CounterStore;
  responseStore: ResponseStore;
  redis?: RedisClient;
  close(): Promise<void>;
}

export async function createState(config: GatewayConfig, log: Logger): Promise<GatewayState> {
  const ttlMs = config.ledger.ttlSeconds * 1000;
  if (config.state.type === 'memory') {
    const ledger = new MemoryLedger({ ttlMs, maxEntries: config.ledger.maxEntries, ...ledgerBudget(config, log) });
    const counters = new MemoryCounterStore();
    const responseStore = createMemoryResponseStore({ ttlMs, maxEntries: config.ledger.maxEntries, ...responsesBudget(config, log) });
    return { ledger, counters, responseStore, close: async () => void (await counters.close()) };
  }
  // Loaded only when configured: a single instance never pays for the Redis client.
  const { createRedisState } = await import('./redis-state.js');
  return createRedisState(config, log);
}

/** What /readyz and /healthz read of the state backend (nothing for memory state). */
export function stateReadiness(state: GatewayState, config: GatewayConfig['state']): Pick<Readiness, 'state'> {
  const redis = state.redis;
  if (!redis) return {};
  return { state: { backend: 'redis', connected: () => redis.status === 'ready', requiredForReadiness: config.requiredForReadiness } };
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
