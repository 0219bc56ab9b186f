import { createHash, hash as hashOnce, type Hash } from 'node:crypto';
import type { RawChatMessage, RawChatRequest } from '../api/chat-types.js';
import type { LedgerQuery } from './types.js';

// Conversation-prefix fingerprints: how a later request finds the assistant message the gateway
// returned for "this conversation so far", even when the client stripped tool_calls and ids.
//
// Only role + normalized text count. Everything a broken client (or a repair pass) may change
// without changing the conversation is ignored: tool_calls, ids, names, stray part keys,
// whitespace, `null` vs `""`, text parts vs a string, role `function` vs `tool`.
//
// Recording rule for callers: record an answer with the fingerprint of the messages the CLIENT
// sent (`allPrefixFingerprints(original)[original.length]`), not of the repaired request. The
// client echoes its own messages next time; repairs that insert or re-role messages would
// otherwise make the prefix unfindable.

const WS = /\s+/g;
// A whitespace run that is not exactly one space: only then does collapsing change the text
// (most messages have none, and skipping the replace halves the cost of a fingerprint).
const COLLAPSIBLE = /[^\S ]|\s\s/;

/** `text.replace(/\s+/g, ' ')`, without building a new string when that changes nothing. */
export function collapseWhitespace(text: string): string {
  return COLLAPSIBLE.test(text) ? text.replace(WS, ' ') : text;
}

function isPartLike(value: unknown): boolean {
  if (typeof value === 'string') return true;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const part = value as Record<string, unknown>;
  return typeof part.type === 'string' || typeof part.text === 'string';
}

function partText(value: unknown): string {
  if (typeof value === 'string') return value;
  const part = value as Record<string, unknown>;
  if (typeof part.text === 'string') return part.text;
  if (typeof part.refusal === 'string') return part.refusal;
  return '';
}

/**
 * The text a content value carries, before whitespace normalization. Shared with the repair
 * passes so that "content given as an object → JSON string" keeps the same fingerprint.
 */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (typeof content === 'number' || typeof content === 'boolean') return String(content);
  if (Array.isArray(content) && content.every(isPartLike)) {
    let out = '';
    for (const part of content) {
      const text = partText(part);
      if (text !== '') out = out === '' ? text : `${out} ${text}`;
    }
    return out;
  }
  return JSON.stringify(content) ?? '';
}

/** Assistant text may travel as content, or (response echoes) as `refusal` / `audio.transcript`. */
function messageText(message: RawChatMessage): string {
  const text = contentText(message.content);
  if (text.trim() !== '' || message.role !== 'assistant') return text;
  if (typeof message.refusal === 'string') return message.refusal;
  const audio = message.audio;
  if (typeof audio === 'object' && audio !== null && typeof (audio as { transcript?: unknown }).transcript === 'string') {
    return (audio as { transcript: string }).transcript;
  }
  return text;
}

function normalizedRole(role: unknown): string {
  if (role === 'function') return 'tool';
  if (role === 'developer') return 'system';
  return typeof role === 'string' ? role : '';
}

function start(scope: string | undefined): Hash {
  const hash = createHash('sha1');
  // The scope (e.g. a hash of the API key) keeps identical prompts of different tenants apart.
  if (scope !== undefined) hash.update(`scope\u0000${scope}\u0001`);
  return hash;
}

function messageRecord(message: RawChatMessage): string {
  const text = collapseWhitespace(messageText(message)).trim();
  return `${normalizedRole(message.role)}\u0000${text}\u0001`;
}

function feed(hash: Hash, message: RawChatMessage): void {
  hash.update(messageRecord(message));
}

/** Fingerprint of `messages[0..end)`: the same bytes as the incremental form, hashed in one call. */
export function prefixFingerprint(messages: readonly RawChatMessage[], end: number, scope?: string): string {
  let text = scope !== undefined ? `scope\u0000${scope}\u0001` : '';
  const stop = Math.min(end, messages.length);
  for (let i = 0; i < stop; i++) text += messageRecord(messages[i]);
  return hashOnce('sha1', text, 'hex');
}

/** `prefixFingerprint(messages, end)` for each of `ends` (ascending): one pass, one digest per end. */
export function prefixFingerprintsAt(messages: readonly RawChatMessage[], ends: readonly number[], scope?: string): string[] {
  const hash = start(scope);
  const out: string[] = [];
  let fed = 0;
  for (const end of ends) {
    const stop = Math.min(end, messages.length);
    for (; fed < stop; fed++) feed(hash, messages[fed]);
    out.push(hash.copy().digest('hex'));
  }
  return out;
}

/**
 * `result[i]` is the fingerprint before message i (of `messages[0..i)`), for i = 0..length;
 * `result[length]` fingerprints the whole list (what an answer to these messages is recorded under).
 * One incremental hash: O(total text).
 */
export function allPrefixFingerprints(messages: readonly RawChatMessage[], scope?: string): string[] {
  const hash = start(scope);
  const out = new Array<string>(messages.length + 1);
  for (let i = 0; i < messages.length; i++) {
    out[i] = hash.copy().digest('hex');
    feed(hash, messages[i]);
  }
  out[messages.length] = hash.digest('hex');
  return out;
}

function hasToolCalls(message: RawChatMessage): boolean {
  return Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}

/**
 * Indexes of assistant messages that lost their calls: no tool_calls / function_call, yet followed
 * by a tool result. Only these can be restored by prefix, so only these are looked up.
 */
export function restoreCandidates(messages: readonly RawChatMessage[]): number[] {
  const out: number[] = [];
  for (let i = 0; i + 1 < messages.length; i++) {
    const message = messages[i];
    if (message.role !== 'assistant' || hasToolCalls(message)) continue;
    if (typeof message.function_call === 'object' && message.function_call !== null) continue;
    const next = messages[i + 1].role;
    if (next === 'tool' || next === 'function') out.push(i);
  }
  return out;
}

/** What the pipeline prefetches for a request: every call id it mentions + the candidate prefixes. */
export function ledgerQueryFor(request: RawChatRequest, scope?: string): LedgerQuery {
  const messages = request.messages;
  const ids = new Set<string>();
  for (const message of messages) {
    if (typeof message.tool_call_id === 'string' && message.tool_call_id !== '') ids.add(message.tool_call_id);
    if (!Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as unknown[]) {
      const id = (call as { id?: unknown } | null)?.id;
      if (typeof id === 'string' && id !== '') ids.add(id);
    }
  }
  const candidates = restoreCandidates(messages);
  // A digest only where a candidate starts: copying + digesting the hash at every message was
  // most of the cost for long histories.
  const prefixFingerprints = candidates.length > 0 ? prefixFingerprintsAt(messages, candidates, scope) : [];
  return { callIds: [...ids], prefixFingerprints };
}
