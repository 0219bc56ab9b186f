import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { FailSafeLedger } from './failsafe-ledger.js';
import { ledgerBudget, responsesBudget, type GatewayState } from './gateway-state.js';
import { ConfigError } from '../config/load.js';
import { closeRedis, CLUSTER_REFUSED, createRedisClient, isClusterNode, refuseClusterOnReady, waitReady } from './redis-client.js';
import { RedisCounterStore } from './redis-counters.js';
import { RedisLedger } from './redis-ledger.js';
import { RedisResponseStore } from './redis-response-store.js';

/** State shared by every instance on one Redis: the call ledger, the Responses store and the counters. */
export async function createRedisState(config: GatewayConfig, log: Logger): Promise<GatewayState> {
  const ttlMs = config.ledger.ttlSeconds * 1000;
  const redis = createRedisClient(config.state, log);
  if (!(await waitReady(redis, config.state.connectTimeoutMs))) {
    log.error({ limitsFailMode: config.state.limitsFailMode }, 'redis: not reachable at startup; serving anyway and reconnecting in the background');
  } else if (await isClusterNode(redis)) {
    redis.disconnect();
    throw new ConfigError(CLUSTER_REFUSED);
  }
  refuseClusterOnReady(redis, log);
  const prefix = config.state.keyPrefix;
  return {
    ledger: new FailSafeLedger(new RedisLedger(redis, { prefix, ttlMs, ...ledgerBudget(config, log) }), log),
    counters: new RedisCounterStore(redis, prefix),
    responseStore: new RedisResponseStore(redis, { prefix, ttlMs, ...responsesBudget(config, log) }),
    redis,
    close: () => closeRedis(redis),
  };
}
