import type { AbortSignalLike } from '../client-abort.js';
import { errors, GatewayError, isGatewayError } from '../errors.js';
import type { LlmCallOutcome } from './outcomes.js';
import type { BreakerResult } from './breaker.js';

// The one failure taxonomy. Every failed upstream call is classified here, once: its metrics
// outcome, whether it is worth repeating on the same target or on a fallback, what it means for
// the circuit breakers (and which one: the model's, or also the whole provider's), and the log
// level it deserves. Nothing else matches error codes or statuses.

export type FailureRow =
  | 'client_aborted'
  | 'timeout'
  | 'connect'
  | 'rate_limited'
  | 'upstream_timeout_status'
  | 'upstream_5xx'
  | 'upstream_4xx'
  | 'upstream_auth'
  | 'upstream_bad_response'
  | 'circuit_open'
  | 'unmapped';

export interface FailureClass {
  row: FailureRow;
  /** `toolgate_llm_calls_total{outcome}` when this failure is final. */
  outcome: LlmCallOutcome;
  /** Worth repeating on the same target (with backoff). */
  retryable: boolean;
  /** Worth trying the next model of the fallback chain. */
  fallbackable: boolean;
  breaker: BreakerResult;
  /** `provider`: also counts for the provider's breaker (the host is unreachable for every model). */
  breakerScope: 'model' | 'provider';
  logLevel: 'debug' | 'info' | 'warn' | 'error';
}

type Row = Omit<FailureClass, 'row'>;

// prettier-ignore
export const FAILURES: Readonly<Record<FailureRow, Row>> = {
  //                       outcome              retry  fallback breaker    scope       log
  client_aborted:          row('aborted',          false, false, 'neutral', 'model',    'info'),
  timeout:                 row('timeout',          false, true,  'failure', 'model',    'warn'),
  connect:                 row('connect_error',    true,  true,  'failure', 'provider', 'warn'),
  rate_limited:            row('rate_limited',     true,  true,  'neutral', 'model',    'warn'),
  upstream_timeout_status: row('timeout',          true,  true,  'failure', 'model',    'warn'),
  upstream_5xx:            row('error_5xx',        true,  true,  'failure', 'model',    'warn'),
  upstream_4xx:            row('error_4xx',        false, false, 'neutral', 'model',    'info'),
  upstream_auth:           row('error_4xx',        false, true,  'failure', 'model',    'error'),
  upstream_bad_response:   row('invalid_response', true,  true,  'failure', 'model',    'warn'),
  circuit_open:            row('error_5xx',        false, true,  'neutral', 'model',    'warn'),
  unmapped:                row('connect_error',    false, false, 'failure', 'model',    'error'),
};

function row(outcome: LlmCallOutcome, retryable: boolean, fallbackable: boolean, breaker: BreakerResult, breakerScope: Row['breakerScope'], logLevel: Row['logLevel']): Row {
  return { outcome, retryable, fallbackable, breaker, breakerScope, logLevel };
}

/** Classifies a failure; `signal` aborted means the client left first, whatever the error says. */
export function classifyFailure(error: unknown, signal?: AbortSignalLike): FailureClass {
  const name = rowOf(error, signal);
  return { row: name, ...FAILURES[name] };
}

function rowOf(error: unknown, signal?: AbortSignalLike): FailureRow {
  if (signal?.aborted) return 'client_aborted';
  if (!isGatewayError(error)) {
    // Errors no adapter mapped: aborts, undici timeouts (UND_ERR_*_TIMEOUT), else the network.
    if (error instanceof Error && error.name === 'AbortError') return 'client_aborted';
    const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
    return typeof code === 'string' && code.includes('TIMEOUT') ? 'timeout' : 'unmapped';
  }
  switch (error.kind) {
    case 'client_aborted':
    case 'timeout':
    case 'connect':
    case 'upstream_auth':
    case 'upstream_bad_response':
    case 'circuit_open':
      return error.kind;
    default:
      return statusRow(error);
  }
}

/** Upstream HTTP statuses (and the catalogue's own errors, by status). */
function statusRow(error: GatewayError): FailureRow {
  if (error.type === 'timeout_error') return 'timeout';
  if (error.status === 429) return 'rate_limited';
  if (error.status === 504) return 'upstream_timeout_status';
  if (error.status >= 500 && error.status !== 501) return 'upstream_5xx';
  return 'upstream_4xx';
}

/** Logs a failure at the level the table gives it (a client that left is not a warning). */
export function logFailure(log: { [level in FailureClass['logLevel']]: (object: object, message: string) => void }, error: unknown, signal: AbortSignalLike | undefined, message: string): void {
  const failure = classifyFailure(error, signal);
  const detail = failure.row === 'client_aborted' ? { clientAborted: true } : { err: error };
  log[failure.logLevel](detail, failure.row === 'client_aborted' ? `${message}: the client went away` : message);
}

/**
 * A provider's 401/403 is about the gateway's own key, not the client's: a 502 `upstream_auth_failed`
 * naming the provider (the client's 401 would tell it to fix a key it cannot fix). Anything in the
 * provider's message that looks like a key, whole or masked (`sk-abc***xyz`), is redacted: the
 * configured keys are scrubbed before, but a provider may quote a part of one.
 */
export function asProviderFailure(error: unknown, provider: string): unknown {
  if (!isGatewayError(error) || error.kind !== 'upstream_status' || (error.status !== 401 && error.status !== 403)) return error;
  const detail = redactKeyLike(error.message).slice(0, 500);
  return errors.upstreamAuthFailed(provider, error.status, /[.!?]$/.test(detail) ? detail : `${detail}.`);
}

// Runs of key characters at least 12 long that hold a digit or a mask character: keys, not words.
const KEY_LIKE = /[A-Za-z0-9_\-*.]{12,}/g;

function redactKeyLike(text: string): string {
  return text.replace(KEY_LIKE, (run) => (/[0-9*]/.test(run) ? '[REDACTED]' : run));
}
