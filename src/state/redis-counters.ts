import type { Redis } from 'ioredis';
import type { CounterStore } from '../auth/counters.js';

// Rate-limit and budget counters on Redis: INCRBY plus a TTL set once per window, atomically
// (Lua), so every instance sharing the Redis shares the limits.

const ADD = `
local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return value`;

export class RedisCounterStore implements CounterStore {
  constructor(
    private readonly client: Redis,
    private readonly prefix: string,
  ) {}

  async add(key: string, by: number, ttlMs: number): Promise<number> {
    const value = await this.client.eval(ADD, 1, `${this.prefix}limit:${key}`, String(Math.round(by)), String(Math.round(ttlMs)));
    return Number(value);
  }

  async get(key: string): Promise<number> {
    const value = await this.client.get(`${this.prefix}limit:${key}`);
    return value === null ? 0 : Number(value);
  }
}
