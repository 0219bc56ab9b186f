import type { RawChatMessage, RawChatRequest } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import type { FindingKind } from './kinds.js';
import type { Finding } from './types.js';

export { contentText } from '../ledger/fingerprint.js';

export { isRecord };

export function nonEmptyString(value: unknown): value is string {
  return typeof value === 'string' && value !== '';
}

/** The message has at least one tool call (each call's shape not checked yet). */
export function hasCalls(message: RawChatMessage): message is RawChatMessage & { tool_calls: unknown[] } {
  return Array.isArray(message.tool_calls) && message.tool_calls.length > 0;
}

export function callId(call: unknown): string {
  return isRecord(call) && typeof call.id === 'string' ? call.id : '';
}

export function callName(call: unknown): string {
  return isRecord(call) && isRecord(call.function) && typeof call.function.name === 'string' ? call.function.name : '';
}

/** A tool result's id, '' when missing. */
export function resultId(message: RawChatMessage): string {
  return typeof message.tool_call_id === 'string' ? message.tool_call_id : '';
}

export function finding(kind: FindingKind, index: number, detail: string, advisory = false): Finding {
  return advisory ? { kind, index, detail, advisory: true } : { kind, index, detail };
}

export function clip(text: string, max = 60): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

export function withMessages(request: RawChatRequest, messages: RawChatMessage[]): RawChatRequest {
  return { ...request, messages };
}

/** Copy-on-write view of the message list: the input is sliced only on the first change. */
export class MessageList {
  private copy: RawChatMessage[] | null = null;
  constructor(private readonly source: RawChatMessage[]) {}

  get(index: number): RawChatMessage {
    return (this.copy ?? this.source)[index];
  }

  set(index: number, message: RawChatMessage): void {
    if (this.copy === null) this.copy = this.source.slice();
    this.copy[index] = message;
  }

  get changed(): boolean {
    return this.copy !== null;
  }

  result(request: RawChatRequest): RawChatRequest {
    return this.copy === null ? request : withMessages(request, this.copy);
  }
}

/** A message without the given keys (a shallow copy). */
export function omitKeys<T extends Record<string, unknown>>(value: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!keys.includes(key)) out[key] = value[key];
  return out as T;
}

/** Every call id declared by an assistant anywhere in the history. */
export function allCallIds(messages: readonly RawChatMessage[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (message.role !== 'assistant' || !hasCalls(message)) continue;
    for (const call of message.tool_calls) if (callId(call) !== '') ids.add(callId(call));
  }
  return ids;
}

/** An id not in `taken` (which it is added to), derived from `base`. */
export function uniqueId(base: string, taken: Set<string>): string {
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}
