import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { StateConfig } from '../config/schema.js';

// One ioredis client per gateway instance. Commands never wait for a connection: with the
// offline queue off they fail at once while Redis is away, and commandTimeout bounds a slow
// one, so an outage costs each request at most commandTimeoutMs, never a hang. The client keeps
// reconnecting in the background.

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
