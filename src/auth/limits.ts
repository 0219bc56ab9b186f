import type { FastifyBaseLogger as Logger } from 'fastify';
import { errors, GatewayError } from '../errors.js';
import type { CounterStore } from './counters.js';
import type { GatewayKey } from './keys.js';

// Per-key limits on fixed windows: requests and tokens per clock minute, USD per UTC day.
// Tokens and cost are only known after an answer, so those two limits refuse the request that
// comes after the window is used up (one answer may overshoot; the next one waits).
// Budgets are counted in nano-USD so every store only ever adds integers.

const MINUTE = 60_000;
const DAY = 86_400_000;
const NANO = 1e9;

export type FailMode = 'open' | 'closed';

export interface LimiterOptions {
  store: CounterStore;
  /** What a store outage means for limits: `open` = serve anyway, `closed` = 503. */
  failMode: FailMode;
  log: Logger;
  now?: () => number;
}

export class Limiter {
  private readonly now: () => number;
  private lastWarning = 0;

  constructor(private readonly options: LimiterOptions) {
    this.now = options.now ?? Date.now;
  }

  /** Throws the catalogue's 429 (or 503 when the store is down and failMode is closed). */
  async admit(key: GatewayKey): Promise<void> {
    const now = this.now();
    const minute = Math.floor(now / MINUTE);
    const toNextMinute = Math.max(1, Math.ceil(((minute + 1) * MINUTE - now) / 1000));
    const { store } = this.options;
    let used: [number, number, number];
    try {
      used = await Promise.all([
        key.requestsPerMinute ? store.add(`rpm:${key.name}:${minute}`, 1, MINUTE + 5_000) : 0,
        key.tokensPerMinute ? store.get(`tpm:${key.name}:${minute}`) : 0,
        key.dailyBudgetUsd ? store.get(budgetKey(key.name, now)) : 0,
      ]);
    } catch (error) {
      this.storeFailed(error, 'limits check');
      if (this.options.failMode === 'closed') throw errors.stateUnavailable();
      return;
    }
    const [requests, tokens, spentNano] = used;
    if (key.dailyBudgetUsd && spentNano >= key.dailyBudgetUsd * NANO) {
      const toMidnight = Math.max(1, Math.ceil(((Math.floor(now / DAY) + 1) * DAY - now) / 1000));
      throw errors.budgetExceeded(key.name, key.dailyBudgetUsd, toMidnight);
    }
    if (key.requestsPerMinute && requests > key.requestsPerMinute) {
      throw errors.rateLimited(key.name, `${key.requestsPerMinute} requests per minute`, toNextMinute);
    }
    if (key.tokensPerMinute && tokens >= key.tokensPerMinute) {
      throw errors.rateLimited(key.name, `${key.tokensPerMinute} tokens per minute`, toNextMinute);
    }
  }

  /** Tokens an answer used, counted in the minute it ended. */
  async addTokens(key: GatewayKey, tokens: number): Promise<void> {
    if (!key.tokensPerMinute || !(tokens > 0)) return;
    const minute = Math.floor(this.now() / MINUTE);
    await this.quietly(() => this.options.store.add(`tpm:${key.name}:${minute}`, Math.round(tokens), MINUTE + 5_000), 'token count');
  }

  /** USD an answer cost (from the cost metric), counted in the UTC day it ended. */
  async addCost(keyName: string, usd: number): Promise<void> {
    if (!(usd > 0)) return;
    await this.quietly(() => this.options.store.add(budgetKey(keyName, this.now()), Math.round(usd * NANO), 2 * DAY), 'budget count');
  }

  private async quietly(write: () => Promise<unknown>, what: string): Promise<void> {
    try {
      await write();
    } catch (error) {
      this.storeFailed(error, what);
    }
  }

  /** At most one warning every 10 s: an outage must not flood the logs. */
  private storeFailed(error: unknown, what: string): void {
    const now = this.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    const detail = error instanceof GatewayError ? error.message : error instanceof Error ? error.message : String(error);
    this.options.log.warn({ failMode: this.options.failMode, detail }, `rate-limit store unavailable (${what})`);
  }
}

function budgetKey(name: string, now: number): string {
  return `budget:${name}:${new Date(now).toISOString().slice(0, 10)}`;
}
