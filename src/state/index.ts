import type { Logger } from 'pino';
import { MemoryCounterStore, type CounterStore } from '../auth/counters.js';
import type { GatewayConfig } from '../config/schema.js';
import { MemoryLedger } from '../ledger/memory.js';
import type { CallLedger } from '../ledger/types.js';
import type { ResponseStore } from '../responses/store.js';
import { FailSafeLedger } from './failsafe-ledger.js';
import { closeRedis, createRedisClient, waitReady, type RedisClient } from './redis-client.js';
import { RedisCounterStore } from './redis-counters.js';
import { RedisLedger } from './redis-ledger.js';
import { RedisResponseStore } from './redis-response-store.js';

// Where the gateway keeps state: in memory (default, one instance) or on Redis (several
// instances behind a load balancer share the call ledger, the Responses store and the
// rate-limit / budget counters).

export interface GatewayState {
  ledger: CallLedger;
  counters: CounterStore;
  /** Present for Redis; the app keeps its in-memory Responses store otherwise. */
  responseStore?: ResponseStore;
  redis?: RedisClient;
  close(): Promise<void>;
}

export async function createState(config: GatewayConfig, log: Logger): Promise<GatewayState> {
  const ttlMs = config.ledger.ttlSeconds * 1000;
  if (config.state.type === 'memory') {
    const ledger = new MemoryLedger({ ttlMs, maxEntries: config.ledger.maxEntries });
    const counters = new MemoryCounterStore();
    return { ledger, counters, close: async () => void (await counters.close()) };
  }
  const redis = createRedisClient(config.state, log);
  if (!(await waitReady(redis, config.state.connectTimeoutMs))) {
    log.error({ limitsFailMode: config.state.limitsFailMode }, 'redis: not reachable at startup; serving anyway and reconnecting in the background');
  }
  const prefix = config.state.keyPrefix;
  return {
    ledger: new FailSafeLedger(new RedisLedger(redis, { prefix, ttlMs }), log),
    counters: new RedisCounterStore(redis, prefix),
    responseStore: new RedisResponseStore(redis, { prefix, ttlMs }),
    redis,
    close: () => closeRedis(redis),
  };
}
