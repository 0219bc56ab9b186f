// Maps a failed upstream call to its `outcome` label. The caller decides `retried` / `fallback`
// (it knows whether it goes on); this covers the final-failure outcomes.
import { isGatewayError } from '../errors.js';
import type { LlmCallOutcome } from './types.js';

export function outcomeOfError(error: unknown, signal?: AbortSignal): LlmCallOutcome {
  if (signal?.aborted) return 'aborted';
  if (!isGatewayError(error)) {
    // Errors adapters did not map: aborts, undici timeouts (UND_ERR_*_TIMEOUT), else the network.
    if (error instanceof Error && error.name === 'AbortError') return 'aborted';
    const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
    return typeof code === 'string' && code.includes('TIMEOUT') ? 'timeout' : 'connect_error';
  }
  if (error.code === 'upstream_unreachable') return 'connect_error';
  if (error.code === 'upstream_bad_response') return 'invalid_response';
  if (error.type === 'timeout_error' || error.status === 504) return 'timeout';
  if (error.status === 429) return 'rate_limited';
  return error.status >= 500 ? 'error_5xx' : 'error_4xx';
}
