// The outcomes of an upstream call: resilience decides them, metrics counts them (metrics/types.ts
// re-exports them), so the word list lives below both.

/**
 * What happened to one upstream (LLM) call — `toolgate_llm_calls_total{outcome}`. Every call
 * gets exactly one outcome:
 * - `success`          2xx and the answer was used (for streams: the stream completed).
 * - `error_4xx`        upstream 4xx other than 429, final (the client got an error).
 * - `rate_limited`     upstream 429, final.
 * - `error_5xx`        upstream 5xx, final.
 * - `timeout`          no first byte within timeoutMs, or a stream went idle; final.
 * - `connect_error`    DNS / refused / reset before a response; final.
 * - `invalid_response` 2xx that toolgate could not read (bad JSON, broken SSE); final.
 * - `aborted`          the client went away or the gateway cancelled it; not an upstream error.
 * - `retried`          the call failed and the gateway repeated it on the same route and mode.
 * - `fallback`         the call failed or its answer was rejected and the gateway went on with a
 *                      different route/model or a different tool mode (e.g. native → prompt).
 * Upstream error rate = every outcome except `success` and `aborted`, over all calls.
 */
export const LLM_CALL_OUTCOMES = [
  'success',
  'error_4xx',
  'rate_limited',
  'error_5xx',
  'timeout',
  'connect_error',
  'invalid_response',
  'aborted',
  'retried',
  'fallback',
] as const;
export type LlmCallOutcome = (typeof LLM_CALL_OUTCOMES)[number];
