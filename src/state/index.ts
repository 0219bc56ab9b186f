import type { Logger } from 'pino';
import { MemoryCounterStore } from '../auth/counters.js';
import type { GatewayConfig } from '../config/schema.js';
import { MemoryLedger } from '../ledger/memory.js';
import { createMemoryResponseStore } from './response-store.js';
import { ledgerBudget, responsesBudget, type GatewayState } from './gateway-state.js';

// Where the gateway keeps state: in memory (default, one instance) or on Redis (several
// instances behind a load balancer share the call ledger, the Responses store and the
// rate-limit / budget counters).

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
/** What the health probes read: ready at all, and the shared state backend (Redis) when there is one. */
export interface Readiness {
  ready: boolean;
  /** The shared state backend (Redis): whether it answers now. Absent: state in memory. */
  state?: { backend: 'redis'; connected: () => boolean; requiredForReadiness: boolean };
}

export function stateReadiness(state: GatewayState, config: GatewayConfig['state']): Pick<Readiness, 'state'> {
  const redis = state.redis;
  if (!redis) return {};
  return { state: { backend: 'redis', connected: () => redis.status === 'ready', requiredForReadiness: config.requiredForReadiness } };
}
