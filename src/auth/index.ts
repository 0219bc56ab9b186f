import type { FastifyBaseLogger as Logger } from 'fastify';
import type { LoadedConfig } from '../config/load.js';
import type { Metrics } from '../metrics/index.js';
import type { CounterStore } from './counters.js';
import { KeyRing } from './keys.js';
import { Limiter } from './limits.js';
import { createRedactor } from '../config/secrets.js';

export { KeyRing, namesOf, type GatewayKey } from './keys.js';
export { MemoryCounterStore, type CounterStore } from './counters.js';
export { Limiter } from './limits.js';

/** Gateway keys and their limits, shared by every request. */
export interface GatewayAuth {
  keys: KeyRing;
  limiter: Limiter;
  /** Scrubs provider keys and gateway secrets from text a client will see (upstream error messages). */
  redact: (text: string) => string;
  /** Stops listening to the cost metric. */
  close(): void;
}

export function createAuth(loaded: LoadedConfig, store: CounterStore, metrics: Metrics, log: Logger): GatewayAuth {
  const { config } = loaded;
  const keys = new KeyRing(config.auth);
  const limiter = new Limiter({ store, failMode: config.state.limitsFailMode, log });
  // Daily budgets follow the cost metric: every costed answer carries the key name as budgetKey.
  const budgeted = new Set(config.auth.keys.filter((key) => key.dailyBudgetUsd !== undefined).map((key) => key.name));
  const unsubscribe = budgeted.size
    ? metrics.onCost((event) => {
        if (event.budgetKey !== undefined && budgeted.has(event.budgetKey)) void limiter.addCost(event.budgetKey, event.usd);
      })
    : () => undefined;
  const redact = createRedactor(loaded.secrets);
  return { keys, limiter, redact, close: unsubscribe };
}
