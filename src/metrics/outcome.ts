// Maps a failed upstream call to its `outcome` label. The caller decides `retried` / `fallback`
// (it knows whether it goes on); this covers the final-failure outcomes, from the one failure
// table (src/resilience/failures.ts).
import type { AbortSignalLike } from '../client-abort.js';
import { classifyFailure } from '../resilience/failures.js';
import type { LlmCallOutcome } from './types.js';

export function outcomeOfError(error: unknown, signal?: AbortSignalLike): LlmCallOutcome {
  return classifyFailure(error, signal).outcome;
}
