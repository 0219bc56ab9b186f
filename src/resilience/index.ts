import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { CircuitBreaker } from './breaker.js';
import type { RetryPolicy } from './retry.js';

export { CircuitBreaker, type BreakerPermit, type BreakerState } from './breaker.js';
export { backoffMs, breakerResult, classify, retryAfterMs, sleep, type RetryPolicy } from './retry.js';

/** Per-provider retry policies and circuit breakers, built once from the config. */
export class Resilience {
  private readonly breakers = new Map<string, CircuitBreaker>();
  private readonly policies = new Map<string, RetryPolicy>();

  constructor(
    config: GatewayConfig,
    log: Pick<Logger, 'warn' | 'info'>,
    /** Jitter source (tests pin it). */
    readonly random: () => number = Math.random,
    now?: () => number,
  ) {
    for (const [name, provider] of Object.entries(config.providers)) {
      this.policies.set(name, provider.retry);
      this.breakers.set(
        name,
        new CircuitBreaker(name, {
          ...provider.circuitBreaker,
          now,
          onStateChange: (state, detail) => {
            if (state === 'open') log.warn(detail, `circuit breaker for provider '${name}' opened: calls skip it for ${provider.circuitBreaker.cooldownMs} ms`);
            else log.info(detail, `circuit breaker for provider '${name}' is ${state}`);
          },
        }),
      );
    }
  }

  breaker(provider: string): CircuitBreaker {
    let breaker = this.breakers.get(provider);
    if (!breaker) {
      // Providers come from the config; a stray name gets a private, default breaker.
      breaker = new CircuitBreaker(provider, { failureThreshold: 5, cooldownMs: 30_000 });
      this.breakers.set(provider, breaker);
    }
    return breaker;
  }

  policy(provider: string): RetryPolicy {
    return this.policies.get(provider) ?? { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };
  }
}
