import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { StateConfig } from '../config/schema.js';

// One ioredis client per gateway instance. Commands never wait for a connection: with the
// offline queue off they fail at once while Redis is away, and commandTimeout bounds a slow
// one, so an outage costs each request at most commandTimeoutMs, never a hang. The client keeps
// reconnecting in the background.
//
// Single-node Redis only (a primary, with replicas or Sentinel if wanted), never Cluster: the Lua
// scripts of the ledger and the Responses store build the keys they touch at run time (entry ids
// read from an index, one key per item), which Cluster cannot route to one slot. A Cluster node is
// refused at startup, and disconnected if one shows up on a later reconnect.

export type RedisClient = Redis;

export function createRedisClient(config: Omit<StateConfig, 'requiredForReadiness'>, log: Pick<Logger, 'warn' | 'info'>): Redis {
  const client = new Redis(config.url ?? 'redis://127.0.0.1:6379', {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: config.commandTimeoutMs,
    connectTimeout: config.connectTimeoutMs,
    retryStrategy: (times) => Math.min(100 * times, 2_000),
    lazyConnect: false,
  });
  let lastWarning = 0;
  client.on('error', (error: Error) => {
    const now = Date.now();
    if (now - lastWarning < 10_000) return; // an outage must not flood the logs
    lastWarning = now;
    log.warn({ detail: error.message }, 'redis: connection problem (state degrades: fewer repairs, limits per failMode)');
  });
  client.on('ready', () => log.info('redis: connected'));
  return client;
}

/** Resolves true once the client is ready, false after `timeoutMs` (the gateway starts anyway). */
export function waitReady(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'ready') return Promise.resolve(true);
  return new Promise((resolve) => {
    const done = (ready: boolean): void => {
      clearTimeout(timer);
      client.off('ready', onReady);
      resolve(ready);
    };
    const onReady = (): void => done(true);
    const timer = setTimeout(() => done(false), timeoutMs);
    client.on('ready', onReady);
  });
}

export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  try {
    await Promise.race([client.quit(), new Promise((resolve) => setTimeout(resolve, 500).unref())]);
  } catch {
    // quitting a broken connection: disconnect below
  }
  client.disconnect();
}

/** True when the server is a Redis Cluster node (`INFO cluster`: cluster_enabled:1). */
export async function isClusterNode(client: Redis): Promise<boolean> {
  const info = await client.info('cluster');
  return /^cluster_enabled:1\s*$/m.test(info);
}

export const CLUSTER_REFUSED =
  "state.url points at a Redis Cluster node: toolgate needs a single Redis (a primary, optionally with replicas or Sentinel); its Lua scripts are not Cluster-safe";

/** After every (re)connect: a Cluster node is refused (logged, disconnected): state then fails as when Redis is down. */
export function refuseClusterOnReady(client: Redis, log: Pick<Logger, 'error'>): void {
  client.on('ready', () => {
    isClusterNode(client).then(
      (cluster) => {
        if (!cluster) return;
        log.error(CLUSTER_REFUSED);
        client.disconnect();
      },
      () => undefined, // the connection went away again: the next ready checks anew
    );
  });
}
