import type { AssistantMessage } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import { reasoningTextOf } from '../api/reasoning-text.js';
import type { LedgerEntry } from './types.js';

// The reasoning the ledger keeps with an answered tool call, in the one internal shape: the chat
// message's `reasoning_content` (text, whoever produced it: a native field, Gemini thought
// summaries, reasoning split out of the text, a bridged Responses reasoning item) and, per call,
// the signature that must travel with it: Gemini's thought signature, in the call's
// `extra_content.google.thought_signature` (Google's OpenAI-compatible field) or the callMeta the
// native Gemini adapter records.

/** Reasoning longer than this (UTF-8 bytes) is not kept: the tool calls are still recorded. */
export const MAX_LEDGER_REASONING_BYTES = 256 * 1024;

/** The reasoning text a message carries, '' when none. */
export function reasoningOf(message: { readonly [key: string]: unknown } | undefined): string {
  return message === undefined ? '' : reasoningTextOf(message);
}

/** The recorded answer's reasoning text, '' when none was kept. */
export function recordedReasoning(entry: LedgerEntry): string {
  return reasoningOf(entry.message);
}

/** Gemini's thought signature on a chat tool call (`extra_content.google.thought_signature`), '' when none. */
export function callSignature(call: unknown): string {
  if (!isRecord(call) || !isRecord(call.extra_content)) return '';
  const google = call.extra_content.google;
  const signature = isRecord(google) ? google.thought_signature : undefined;
  return typeof signature === 'string' ? signature : '';
}

/** The signature recorded for call `id` of an entry: callMeta first (native Gemini), then the call itself. */
export function recordedSignature(entry: LedgerEntry, id: string): string {
  const meta = entry.callMeta?.[id]?.thoughtSignature;
  if (typeof meta === 'string' && meta !== '') return meta;
  const call = entry.message.tool_calls?.find((candidate) => candidate.id === id);
  return callSignature(call);
}

/** A copy of a tool call carrying `signature` in `extra_content.google` (other extra content kept). */
export function withSignature<T extends Record<string, unknown>>(call: T, signature: string): T {
  const extra = isRecord(call.extra_content) ? call.extra_content : {};
  const google = isRecord(extra.google) ? extra.google : {};
  return { ...call, extra_content: { ...extra, google: { ...google, thought_signature: signature } } };
}

/** The message as the ledger keeps it: reasoning over the byte bound is left out (the calls are what matter most). */
export function boundedForLedger(message: AssistantMessage): AssistantMessage {
  const text = reasoningOf(message);
  // A UTF-8 byte is at most 3 per UTF-16 unit: count bytes only when the length leaves doubt.
  if (text.length * 3 <= MAX_LEDGER_REASONING_BYTES || Buffer.byteLength(text, 'utf8') <= MAX_LEDGER_REASONING_BYTES) return message;
  const { reasoning_content: _tooLong, reasoning: _tooLongToo, reasoning_details: _tooLongParts, ...rest } = message;
  return rest as AssistantMessage;
}
