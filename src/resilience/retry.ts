import type { AbortSignalLike } from '../client-abort.js';
import { GatewayError } from '../errors.js';
import { classifyFailure, FAILURES } from './failures.js';
import type { LlmCallOutcome } from './outcomes.js';
import type { BreakerResult } from './breaker.js';

// What a failed upstream call allows: a retry on the same provider, a fallback to the next
// model, neither. Only failures before any byte reached the client get here (the pipeline
// never retries a stream that was handed back).

export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** What a failure allows (from the one table in failures.ts). */
export function classify(error: unknown): { retryable: boolean; fallbackable: boolean } {
  const { retryable, fallbackable } = classifyFailure(error);
  return { retryable, fallbackable };
}

/** How a call's final outcome counts for a circuit breaker (429 and 4xx do not). */
export function breakerResult(outcome: LlmCallOutcome): BreakerResult {
  if (outcome === 'success') return 'success';
  const row = Object.values(FAILURES).find((candidate) => candidate.outcome === outcome);
  return row?.breaker ?? 'neutral';
}

/** The upstream's `retry-after-ms` / `retry-after` (seconds or an HTTP date), when the error carries it. */
export function retryAfterMs(error: unknown, now = Date.now()): number | undefined {
  if (!(error instanceof GatewayError)) return undefined;
  const headers = error.headers;
  const ms = Number(headers['retry-after-ms']);
  if (headers['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers['retry-after'];
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds * 1000 : undefined;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

/**
 * The wait before attempt `attempt + 1`, or undefined when it should not be retried here.
 * Exponential with equal jitter (half fixed, half random) so parallel clients spread out; a
 * 429's retry-after is honoured as the minimum wait, and one asking for more than maxDelayMs is
 * not waited for (the request goes to its fallbacks, or the 429 to the client, at once).
 */
export function backoffMs(attempt: number, policy: RetryPolicy, error: unknown, random: () => number = Math.random): number | undefined {
  if (attempt >= policy.maxAttempts) return undefined;
  const asked = retryAfterMs(error);
  if (asked !== undefined) {
    if (asked > policy.maxDelayMs) return undefined;
    return Math.round(asked + random() * Math.min(policy.baseDelayMs, 250));
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
  return Math.round(exp / 2 + (random() * exp) / 2);
}

/** Waits, or stops early when the signal aborts (the caller checks the signal after). */
export function sleep(ms: number, signal: AbortSignalLike): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}
