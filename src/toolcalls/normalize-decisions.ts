import type { FinishReason } from '../api/chat-types.js';
import { errors } from '../errors.js';

// The decisions normalizeCompletion (JSON) and the stream normalizer both make, in one place, so the
// two answers cannot differ. docs/answers.md lists every row; a change not listed there is not made.
//
// | question                                  | decision                                                        |
// |-------------------------------------------|-----------------------------------------------------------------|
// | an upstream index (choice, tool call)     | a small non-negative integer, else 502 upstream_bad_response    |
// | the client's tool-call indices            | 0..n-1 per choice, in the order the calls appear                |
// | the answer was cut off (length, filter)   | finish_reason kept; text at the cut stays text; no completion   |
// | finish_reason when the answer has calls   | tool_calls (function_call for legacy requests), unless cut off  |
// | native arguments                          | kept byte for byte (empty → {}); checked, never rewritten       |
// | text-call arguments                       | built by toolgate: repaired, coerced to the schema, checked     |
// | a new native call in a stream             | a new index, or a non-empty id that differs from the call's     |

/** The largest index an upstream may use for a choice or a tool call (OpenAI allows n ≤ 128). */
export const MAX_UPSTREAM_INDEX = 1023;

/** An upstream index as a number, or a 502: upstream data never becomes a key or an array length unchecked. */
export function upstreamIndex(value: unknown, what: string, provider: string | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_UPSTREAM_INDEX) return value;
  const shown = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : typeof value === 'number' ? String(value) : typeof value;
  throw errors.upstreamBadResponse(provider ?? 'upstream', `${what} ${shown} is not an integer from 0 to ${MAX_UPSTREAM_INDEX}`);
}

/** The upstream stopped the answer before it was complete: nothing at its end may be taken as complete. */
export function isCutOff(finish: FinishReason | null | undefined): boolean {
  return finish === 'length' || finish === 'content_filter';
}

/** The client's finish_reason on the choice's last word, given the upstream's and whether the answer has calls (legacy: see toLegacy). */
export function finishReasonFor(upstream: FinishReason | null, hasCalls: boolean): FinishReason | null {
  if (isCutOff(upstream) || !hasCalls) return upstream;
  return 'tool_calls';
}

/** Whether a native call's arguments as sent are empty (the client then gets `{}` appended). */
export function emptyArguments(text: string): boolean {
  return text.trim() === '';
}

/**
 * Native arguments as the client gets them: the upstream's text as it is, `{}` added to text that is
 * empty or blank (what a stream can do too: append) unless the answer was cut off, an object serialized.
 */
export function nativeArgumentsText(raw: unknown, cutOff: boolean): string {
  if (raw === undefined || raw === null) return cutOff ? '' : '{}';
  if (typeof raw === 'string') return emptyArguments(raw) && !cutOff ? `${raw}{}` : raw;
  return JSON.stringify(raw);
}

/** A non-empty id starts a new call in a stream; `""` and a missing id continue the current one. */
export function startsNewCall(deltaId: unknown, callId: string | undefined): boolean {
  return typeof deltaId === 'string' && deltaId !== '' && callId !== undefined && deltaId !== callId;
}

/** An upstream id worth keeping (a string, not empty). */
export function usableId(id: unknown): string | undefined {
  return typeof id === 'string' && id !== '' ? id : undefined;
}
