import { LRUCache } from 'lru-cache';
import type { Logger } from 'pino';
import type { CircuitBreakerConfig, GatewayConfig } from '../config/schema.js';
import { CircuitBreaker, type BreakerPermit, type BreakerResult } from './breaker.js';
import type { RetryPolicy } from './retry.js';

export { CircuitBreaker, type BreakerPermit, type BreakerResult, type BreakerState } from './breaker.js';
export { backoffMs, breakerResult, classify, retryAfterMs, sleep, type RetryPolicy } from './retry.js';
export { asProviderFailure, classifyFailure, FAILURES, logFailure, type FailureClass } from './failures.js';

/** Distinct upstream models with their own breaker (least recently used beyond this are forgotten). */
const MAX_MODEL_BREAKERS = 1_000;
const DEFAULT_BREAKER: CircuitBreakerConfig = { failureThreshold: 5, cooldownMs: 30_000 };

/** Permission for one call to one upstream model; its result is reported exactly once. */
export interface TargetPermit {
  /** `provider` scope: the failure also counts for every model of the provider (connect failures). */
  report(result: BreakerResult, scope?: 'model' | 'provider'): void;
}

/**
 * The breakers one upstream model passes: its own (failures of this model, e.g. a deprecated one
 * answering 500) and its provider's (only connect-level failures: the host is down for everyone).
 */
export class TargetGate {
  constructor(
    readonly provider: CircuitBreaker,
    readonly model: CircuitBreaker,
  ) {}

  canAttempt(): boolean {
    return this.provider.canAttempt() && this.model.canAttempt();
  }

  /** Which breaker refuses calls now, if any. */
  openScope(): 'provider' | 'model' | undefined {
    if (!this.provider.canAttempt()) return 'provider';
    return this.model.canAttempt() ? undefined : 'model';
  }

  retryAfterSeconds(): number {
    return this.openScope() === 'provider' ? this.provider.retryAfterSeconds() : this.model.retryAfterSeconds();
  }

  acquire(): TargetPermit | undefined {
    if (!this.provider.canAttempt()) return undefined;
    const model = this.model.acquire();
    if (!model) return undefined;
    const provider = this.provider.acquire() as BreakerPermit;
    return new BothPermits(model, provider);
  }
}

// An object, not a closure over acquire's scope: a stream holds its permit to its end.
class BothPermits implements TargetPermit {
  constructor(
    private readonly model: BreakerPermit,
    private readonly provider: BreakerPermit,
  ) {}

  report(result: BreakerResult, scope: 'model' | 'provider' = 'model'): void {
    this.model.report(result);
    this.provider.report(scope === 'provider' || result === 'success' ? result : 'neutral');
  }
}

/** Per-provider retry policies; circuit breakers per upstream model and per provider. */
export class Resilience {
  private readonly providerBreakers = new Map<string, CircuitBreaker>();
  private readonly modelBreakers = new LRUCache<string, CircuitBreaker>({ max: MAX_MODEL_BREAKERS });
  private readonly policies = new Map<string, RetryPolicy>();
  private readonly settings = new Map<string, CircuitBreakerConfig>();

  constructor(
    config: GatewayConfig,
    private readonly log: Pick<Logger, 'warn' | 'info'>,
    /** Jitter source (tests pin it). */
    readonly random: () => number = Math.random,
    private readonly now?: () => number,
  ) {
    for (const [name, provider] of Object.entries(config.providers)) {
      this.policies.set(name, provider.retry);
      this.settings.set(name, provider.circuitBreaker);
    }
  }

  /** The breakers a call to `upstreamModel` on `provider` passes. */
  gate(provider: string, upstreamModel: string): TargetGate {
    let providerBreaker = this.providerBreakers.get(provider);
    if (!providerBreaker) {
      // Providers come from the config; a stray name gets a private, default breaker.
      providerBreaker = this.breaker(provider, `provider '${provider}'`, provider);
      this.providerBreakers.set(provider, providerBreaker);
    }
    const key = `${provider}/${upstreamModel}`;
    let modelBreaker = this.modelBreakers.get(key);
    if (!modelBreaker) {
      modelBreaker = this.breaker(provider, `model '${upstreamModel}' of provider '${provider}'`, key);
      this.modelBreakers.set(key, modelBreaker);
    }
    return new TargetGate(providerBreaker, modelBreaker);
  }

  policy(provider: string): RetryPolicy {
    return this.policies.get(provider) ?? { maxAttempts: 1, baseDelayMs: 0, maxDelayMs: 0 };
  }

  private breaker(provider: string, what: string, key: string): CircuitBreaker {
    const options = this.settings.get(provider) ?? DEFAULT_BREAKER;
    return new CircuitBreaker(key, {
      ...options,
      now: this.now,
      onStateChange: (state, detail) => {
        if (state === 'open') this.log.warn(detail, `circuit breaker for ${what} opened: calls skip it for ${options.cooldownMs} ms`);
        else this.log.info(detail, `circuit breaker for ${what} is ${state}`);
      },
    });
  }
}
