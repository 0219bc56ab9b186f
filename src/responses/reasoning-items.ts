import type { AssistantMessage } from '../api/chat-types.js';
import type { LedgerEntry } from '../ledger/types.js';
import type { Finding } from '../repair/types.js';
import { isFunctionCall, isReasoning, isRecord, type Item } from '../api/responses-types.js';

// OpenAI's reasoning items in `store: false` conversations: the model's reasoning travels only as
// the items' `encrypted_content` (with `include: ["reasoning.encrypted_content"]`), so a client
// that drops the items (or keeps only their ids, which OpenAI cannot look up without a store:
// 404 "Item with id 'rs_…' not found") loses it. The call ledger keeps, with each function call of
// a native answer, the reasoning items that came before it in that answer (encrypted ones only:
// an id alone is useless without a store); the current turn of a later request gets them back
// before its first call, exactly as answered. Pure functions; native.ts does the I/O.

/** The ledger's per-call metadata name for the reasoning items (JSON array) that came with a call. */
export const REASONING_ITEMS_META = 'responsesReasoning';

export interface CallReasoning {
  message: AssistantMessage;
  callMeta: NonNullable<LedgerEntry['callMeta']>;
}

/** What to record for an answer's output: its calls, each with the encrypted reasoning items before it; undefined when none. */
export function reasoningRecordOf(output: readonly Item[]): CallReasoning | undefined {
  let reasoning: Item[] = [];
  const message: AssistantMessage = { role: 'assistant', content: null, tool_calls: [] };
  const callMeta: CallReasoning['callMeta'] = {};
  for (const item of output) {
    if (isReasoning(item)) {
      if (typeof item.encrypted_content === 'string' && item.encrypted_content !== '') reasoning.push(item);
    } else if (isFunctionCall(item)) {
      message.tool_calls?.push({ id: item.call_id, type: 'function', function: { name: item.name, arguments: item.arguments } });
      if (reasoning.length > 0) callMeta[item.call_id] = { [REASONING_ITEMS_META]: JSON.stringify(reasoning) };
    } else if (item.type === 'message') {
      reasoning = [];
    }
  }
  return Object.keys(callMeta).length > 0 ? { message, callMeta } : undefined;
}

/** Where the current turn starts: after the last user message. */
function turnStart(items: readonly Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (items[i].type === 'message' && items[i].role === 'user') return i + 1;
  return 0;
}

/** The call ids of the function calls of the current turn (what the ledger is asked about). */
export function currentTurnCallIds(items: readonly Item[]): string[] {
  const ids: string[] = [];
  for (let i = turnStart(items); i < items.length; i++) {
    const item = items[i];
    if (isFunctionCall(item) && !ids.includes(item.call_id)) ids.push(item.call_id);
  }
  return ids;
}

function recordedItems(entry: LedgerEntry | undefined, callId: string): Item[] {
  const text = entry?.callMeta?.[callId]?.[REASONING_ITEMS_META];
  if (typeof text !== 'string') return [];
  try {
    const parsed: unknown = JSON.parse(text);
    if (!Array.isArray(parsed)) return [];
    return parsed.filter((item): item is Item => isRecord(item) && item.type === 'reasoning' && typeof item.id === 'string' && typeof item.encrypted_content === 'string');
  } catch {
    return [];
  }
}

/**
 * The items with the recorded reasoning of the current turn's calls back: inserted before the
 * call when the client left them out, their encrypted_content filled in when the client kept
 * only the id. Items of earlier turns are left as sent; the input is not changed.
 */
export function restoreReasoningItems(items: readonly Item[], byCallId: ReadonlyMap<string, LedgerEntry>): { items: Item[]; findings: Finding[] } {
  const findings: Finding[] = [];
  if (byCallId.size === 0) return { items: items as Item[], findings };
  const start = turnStart(items);
  const present = new Map<string, number>();
  for (let i = 0; i < items.length; i++) if (isReasoning(items[i]) && typeof items[i].id === 'string') present.set(items[i].id as string, i);
  const filled = new Map<number, Item>();
  const inserted = new Map<number, Item[]>();
  const handled = new Set<string>();
  for (let i = start; i < items.length; i++) {
    const item = items[i];
    if (!isFunctionCall(item)) continue;
    const missing: Item[] = [];
    for (const recorded of recordedItems(byCallId.get(item.call_id), item.call_id)) {
      const id = recorded.id as string;
      if (handled.has(id)) continue;
      handled.add(id);
      const at = present.get(id);
      if (at === undefined) missing.push(recorded);
      else if (!(typeof items[at].encrypted_content === 'string' && items[at].encrypted_content !== '')) filled.set(at, { ...items[at], encrypted_content: recorded.encrypted_content });
    }
    if (missing.length > 0) {
      inserted.set(i, missing);
      findings.push({ kind: 'reasoning_restored', index: i, detail: `${missing.length} reasoning item(s) of call ${item.call_id} restored from the ledger (encrypted_content)` });
    }
  }
  for (const at of filled.keys()) findings.push({ kind: 'reasoning_restored', index: at, detail: `encrypted_content of reasoning item ${String(items[at].id)} restored from the ledger` });
  if (filled.size === 0 && inserted.size === 0) return { items: items as Item[], findings };
  const out: Item[] = [];
  items.forEach((item, index) => {
    out.push(...(inserted.get(index) ?? []));
    out.push(filled.get(index) ?? item);
  });
  return { items: out, findings };
}
