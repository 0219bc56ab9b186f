import type { ChatMessage, ChatRequest, RawChatRequest, ToolCall } from '../../src/api/chat-types.js';
import { shapeProblems } from '../../src/repair/checked.js';
import type { LedgerEntry, LedgerSnapshot } from '../../src/ledger/types.js';
import { EMPTY_SNAPSHOT } from '../../src/ledger/types.js';
import { RepairBudget } from '../../src/util/bounded-json.js';
import { DEFAULT_REPAIR_OPTIONS } from '../../src/repair/kinds.js';
import type { RepairContext, RepairOptions } from '../../src/repair/types.js';

export function ctx(options: Partial<RepairOptions> = {}, ledger: LedgerSnapshot = EMPTY_SNAPSHOT): RepairContext {
  return { declaredTools: new Map(), ledger, options: { ...DEFAULT_REPAIR_OPTIONS, ...options }, repairBudget: new RepairBudget() };
}

export function req(messages: unknown[], extra: Record<string, unknown> = {}): ChatRequest {
  return { model: 'gpt-4o', messages: messages as ChatMessage[], ...extra };
}

/** A pass's output read as the strict type, after checking it is one (a pass must leave well-shaped calls). */
export function strict(request: RawChatRequest): ChatRequest {
  const problems = shapeProblems(request);
  if (problems.length > 0) throw new Error(`not a ChatRequest: ${problems.join('; ')}`);
  return request as ChatRequest;
}

export function call(id: string, name: string, args: unknown = '{}'): ToolCall {
  return { id, type: 'function', function: { name, arguments: args as string } };
}

export function assistantCalls(...calls: ToolCall[]): ChatMessage {
  return { role: 'assistant', content: null, tool_calls: calls };
}

export function tool(id: string | undefined, content: unknown, extra: Record<string, unknown> = {}): ChatMessage {
  const m: Record<string, unknown> = { role: 'tool', content, ...extra };
  if (id !== undefined) m.tool_call_id = id;
  return m as ChatMessage;
}

export const user = (content: unknown): ChatMessage => ({ role: 'user', content }) as ChatMessage;
export const system = (content: string): ChatMessage => ({ role: 'system', content });
export const assistant = (content: unknown): ChatMessage => ({ role: 'assistant', content }) as ChatMessage;

/** Freezes a value deeply so a pass that mutates its input throws (ESM is strict mode). */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

export function snapshot(entries: LedgerEntry[], prefixes: Record<string, LedgerEntry> = {}): LedgerSnapshot {
  const byCallId = new Map<string, LedgerEntry>();
  for (const entry of entries) for (const c of entry.message.tool_calls ?? []) byCallId.set(c.id, entry);
  return { byCallId, byPrefix: new Map(Object.entries(prefixes)) };
}

export function entry(calls: ToolCall[], prefixFingerprint = 'fp', content: string | null = null): LedgerEntry {
  return {
    message: { role: 'assistant', content, tool_calls: calls },
    prefixFingerprint,
    provider: 'test',
    model: 'm',
    createdAt: 0,
  };
}

export const kinds = (findings: Array<{ kind: string }>): string[] => findings.map((f) => f.kind);
