import type { Finding } from '../repair/types.js';
import { itemFinding } from './repair-items.js';
import { isFunctionCall, isFunctionOutput, isMessage, isReference, itemText, type Item } from '../api/responses-types.js';

// History restoration (pure; the store lookups happen before, in context.ts).
//
// What is restored is what makes the history invalid, never what a client left out of a valid one:
// - an output whose call is missing gets the call back from the store, or else becomes a user message;
// - a call of the current turn sent without its output gets the output back when the store has it.
// A client whose tool items are not valid Responses items (an output or call without `type`, a
// chat-shaped `role: tool` message or assistant `tool_calls`) is a broken client, not a careful
// one: the incident, where such a client rebuilt every request from the first prompt plus only the
// latest call and its untyped output, so the model never saw the earlier tool results of the turn
// and started over. For it the whole CURRENT turn (after the last user message) is spliced back from
// the conversation the gateway stored for that call, in the order the model saw them. Older turns
// are never touched (compaction), and a valid history that dropped items of its own turn (to save
// context) is left as the client sent it.

export interface RestoreInput {
  /** The request's items after item repair (may hold item_reference items). */
  items: Item[];
  /** Items before them from a resolved previous_response_id chain (empty when none or unknown). */
  previous: readonly Item[];
  /** Stored items by id, to see what an item_reference stands for. */
  referenced: ReadonlyMap<string, Item>;
  /** Gateway-issued call ids → the response whose output holds the call. */
  callResponses: ReadonlyMap<string, string>;
  /** Response id → everything its model saw plus its output (chain, input, output). */
  conversations: ReadonlyMap<string, readonly Item[]>;
  /** False when the upstream holds context the gateway cannot see (an unknown previous_response_id):
   *  outputs whose call is not in the request are then left for it, untouched. */
  convertOrphans: boolean;
  /** The request continues a chain the gateway holds (previous_response_id): an output whose call is
   *  nowhere cannot belong to it, so it is reported in `unknownOutputs`, not made a user message. */
  chained?: boolean;
  /** The client sent malformed tool items (sentMalformedToolItems): restore its whole current turn. */
  wholeTurn: boolean;
}

export interface RestoreResult {
  items: Item[];
  findings: Finding[];
  /** Call ids of outputs in a chained request whose call is nowhere (see RestoreInput.chained). */
  unknownOutputs?: string[];
}

const norm = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** Identity keys: two items are the same when any key matches (ids may be missing on echoes). */
export function keysOf(item: Item): string[] {
  const keys: string[] = [];
  if (isFunctionCall(item)) keys.push(`call:${item.call_id}`);
  else if (isFunctionOutput(item)) keys.push(`out:${item.call_id}`);
  if (typeof item.id === 'string' && item.id !== '' && !isFunctionOutput(item)) keys.push(`id:${item.id}`);
  if (isMessage(item)) keys.push(`msg:${item.role}:${norm(itemText(item.content))}`);
  return keys;
}

/** Item references replaced by what they stand for, where known. */
export function expandReferences(items: readonly Item[], referenced: ReadonlyMap<string, Item>): Item[] {
  return items.map((item) => (isReference(item) ? (referenced.get(item.id) ?? item) : item));
}

const isUser = (item: Item): boolean => isMessage(item) && item.role === 'user';

/** Index of the first item of the current turn: right after the last user message (0 when none). */
export function turnStart(items: readonly Item[]): number {
  for (let i = items.length - 1; i >= 0; i--) if (isUser(items[i])) return i + 1;
  return 0;
}

/** The call id of the last item of the current turn that answers or repeats a gateway-issued call. */
export function anchorCall(input: { items: readonly Item[] } & Pick<RestoreInput, 'previous' | 'referenced' | 'callResponses'>): string | undefined {
  const view = expandReferences(input.items, input.referenced);
  const from = Math.max(0, turnStart([...input.previous, ...view]) - input.previous.length);
  for (let i = view.length - 1; i >= from; i--) {
    const item = view[i];
    if ((isFunctionCall(item) || isFunctionOutput(item)) && input.callResponses.has(item.call_id)) return item.call_id;
  }
  return undefined;
}

export function restoreHistory(input: RestoreInput): RestoreResult {
  const findings: Finding[] = [];
  const unknownOutputs: string[] = [];
  let items = restoreTurn(input, findings);
  items = fixOrphanOutputs({ ...input, items }, findings, unknownOutputs);
  return unknownOutputs.length > 0 ? { items, findings, unknownOutputs } : { items, findings };
}

function restoreTurn(input: RestoreInput, findings: Finding[]): Item[] {
  const { items, previous } = input;
  const callId = anchorCall(input);
  const responseId = callId === undefined ? undefined : input.callResponses.get(callId);
  const conversation = responseId === undefined ? undefined : input.conversations.get(responseId);
  if (conversation === undefined) return items;

  const view = expandReferences(items, input.referenced);
  const all = [...previous, ...view];
  const start = turnStart(all);
  const knownStart = turnStart(conversation);
  // The same turn only: its opening user message must be the one the gateway saw.
  const opening = start > 0 ? norm(itemText(all[start - 1].content)) : null;
  const knownOpening = knownStart > 0 ? norm(itemText(conversation[knownStart - 1].content)) : null;
  if (opening === null || opening !== knownOpening) {
    findings.push(itemFinding('history_restored', -1, `not restored: the turn of call ${callId} opened with another user message`, true));
    return items;
  }

  const present = new Set(all.flatMap(keysOf));
  const known = conversation.slice(knownStart).filter((item) => item.type !== 'reasoning');
  const position = new Map<string, number>();
  known.forEach((item, at) => keysOf(item).forEach((key) => position.has(key) || position.set(key, at)));
  // A call comes back only with its output (sent or known): an unanswered call would be refused upstream.
  const answered = (item: Item): boolean => !isFunctionCall(item) || present.has(`out:${item.call_id}`) || position.has(`out:${item.call_id}`);
  // A valid history gets back only the outputs of calls it sent unanswered.
  const needed = (item: Item): boolean => input.wholeTurn || (isFunctionOutput(item) && present.has(`call:${item.call_id}`));
  const missing = known.map((item, at) => ({ item, at })).filter(({ item }) => answered(item) && needed(item) && !keysOf(item).some((key) => present.has(key)));
  if (missing.length === 0) return items;

  // Request items keep their order; each sits at its known position (an output right after its
  // call), unknown ones stay after the item before them. Missing items slot in at theirs.
  const from = Math.max(0, start - previous.length);
  let last = -1;
  const placed = items.slice(from).map((item, order) => {
    const seen = view[from + order];
    const matched = keysOf(seen).map((key) => position.get(key)).find((at) => at !== undefined);
    const call = isFunctionOutput(seen) ? position.get(`call:${seen.call_id}`) : undefined;
    const at = matched ?? (call !== undefined ? call + 0.5 : last);
    last = at;
    return { item, at, order, restored: false };
  });
  const restored = missing.map(({ item, at }, order) => ({ item: structuredClone(item), at, order: -1 - missing.length + order, restored: true }));
  const merged = [...placed, ...restored].sort((a, b) => a.at - b.at || a.order - b.order);
  const out = [...items.slice(0, from), ...merged.map((entry) => entry.item)];
  out.forEach((item, index) => {
    if (!merged.some((entry) => entry.restored && entry.item === item)) return;
    findings.push(itemFinding('history_restored', index, `${describeItem(item)} restored from response ${responseId}`));
  });
  return out;
}

/**
 * Outputs whose call is nowhere: the call comes back from the store, or the output becomes a user
 * message; in a chained request it is listed in `unknown` instead (the chain is the whole history).
 */
function fixOrphanOutputs(input: RestoreInput, findings: Finding[], unknown: string[]): Item[] {
  if (!input.convertOrphans) return input.items;
  const view = expandReferences(input.items, input.referenced);
  const calls = new Set([...input.previous, ...view].filter(isFunctionCall).map((item) => item.call_id));
  const out: Item[] = [];
  const before = findings.length;
  view.forEach((item, index) => {
    const original = input.items[index];
    if (!isFunctionOutput(item) || calls.has(item.call_id)) {
      out.push(original);
      return;
    }
    const responseId = input.callResponses.get(item.call_id);
    const call = responseId === undefined ? undefined : input.conversations.get(responseId)?.find((known) => isFunctionCall(known) && known.call_id === item.call_id);
    if (call !== undefined) {
      calls.add(item.call_id);
      findings.push(itemFinding('history_restored', out.length, `${describeItem(call)} restored from response ${responseId} before its output`));
      out.push(structuredClone(call), original);
      return;
    }
    if (input.chained === true) {
      unknown.push(item.call_id);
      out.push(original);
      return;
    }
    const text = typeof item.output === 'string' ? item.output : itemText(item.output);
    findings.push(itemFinding('orphan_tool_result', out.length, `output of call ${item.call_id} kept as a user message: its call is not in the history or the store`));
    out.push({ type: 'message', role: 'user', content: `[Tool result (call id ${item.call_id}); the tool call it answers is not in this conversation]\n${text}` });
  });
  return findings.length === before ? input.items : out;
}

/**
 * The client's own `input` holds tool items that are not valid Responses items: a tool output or
 * call without `type`, a chat-shaped `role: "tool"` message or an assistant message with
 * `tool_calls`. Read before item repair types them.
 */
export function sentMalformedToolItems(input: unknown): boolean {
  if (!Array.isArray(input)) return false;
  return input.some((item: unknown) => {
    if (typeof item !== 'object' || item === null) return false;
    const fields = item as Record<string, unknown>;
    if (fields.role === 'tool' || (fields.role === 'assistant' && Array.isArray(fields.tool_calls))) return true;
    return fields.type === undefined && fields.call_id !== undefined;
  });
}

function describeItem(item: Item): string {
  if (isFunctionCall(item)) return `function_call ${item.name}(${item.call_id})`;
  if (isFunctionOutput(item)) return `function_call_output of ${item.call_id}`;
  if (isMessage(item)) return `${item.role} message`;
  return `${String(item.type)} item`;
}
