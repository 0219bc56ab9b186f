import { errors, isGatewayError } from '../errors.js';
import type { Finding } from '../repair/types.js';
import { anchorCall, expandReferences } from './restore.js';
import type { ResponseStore, StoredResponse } from '../state/response-store.js';
import { isFunctionCall, isFunctionOutput, isReasoning, isReference, type Item } from '../api/responses-types.js';

// The only I/O of the conversation-state step: what the store knows about a request's
// previous_response_id chain, its item references and the calls it answers. Everything that
// decides what to do with it is pure (restore.ts, service.ts). The store given is the caller's
// scope (ResponseStore.forScope): nothing another gateway key stored is ever found here.
//
// What needs the store and what only profits from it (docs/reliability-security.md):
// - previous_response_id and item_reference need it: unknown → OpenAI's 400 / 404; a store that
//   cannot be read → 503 response_store_unavailable.
// - history restoration and reasoning items sent back by id only profit: a store that cannot be
//   read skips them (fail open) and says so (advisory finding `store_unavailable`).
//
// A chain is read in two store round trips whatever its length: each stored response keeps the
// ids of the responses before it (StoredResponse.chain, at most MAX_CHAIN - 1), so the head and
// then all its ancestors at once. A link the store no longer has (deleted, expired, evicted) is
// never skipped silently: it is a 400 previous_response_not_found naming that link.

/** Most responses a previous_response_id context holds; older ones are left out, said so. */
export const MAX_CHAIN = 1000;

export interface HistoryContext {
  /** Items before this request from its previous_response_id chain (oldest first); [] when none. */
  previous: Item[];
  /** The ids of the chain's responses, oldest first (what a response stored now keeps as its chain). */
  chain: string[];
  /** previous_response_id was given but the store does not have it. */
  previousUnknown: boolean;
  /** The previous response came from a native /responses upstream (which holds that state too). */
  previousNative: boolean;
  referenced: Map<string, Item>;
  callResponses: Map<string, string>;
  conversations: Map<string, Item[]>;
  /** What was skipped or cut, for the warnings header (advisory findings). */
  findings: Finding[];
}

/** The chain a response stored after `head` keeps: head's own chain plus head, the newest MAX_CHAIN - 1. */
function chainAfter(head: StoredResponse): string[] {
  const chain = [...(head.chain ?? []), head.response.id];
  return chain.length > MAX_CHAIN - 1 ? chain.slice(chain.length - (MAX_CHAIN - 1)) : chain;
}

interface Chain {
  /** The chain's records, oldest first, head last. */
  records: StoredResponse[];
  /** The first link the store does not have (the chain before it is unreadable). */
  missing?: string;
  /** Responses before the oldest kept one that the chain no longer names (over MAX_CHAIN). */
  cut: boolean;
}

/** Every record of the chain that ends at `head`: two reads, or a walk for records stored without `chain`. */
async function chainOf(store: ResponseStore, head: StoredResponse): Promise<Chain> {
  if (head.chain !== undefined) {
    const found = await store.getMany(head.chain);
    const records: StoredResponse[] = [];
    for (const id of head.chain) {
      const record = found.get(id);
      if (!record) return { records: [], missing: id, cut: false };
      records.push(record);
    }
    // A full chain list whose oldest response continued another: the chain went on before it.
    const cut = head.chain.length >= MAX_CHAIN - 1 && (records[0] ?? head).previousResponseId !== undefined;
    return { records: [...records, head], cut };
  }
  // Stored by an older version (no chain list): walked link by link, as far as MAX_CHAIN.
  const records = [head];
  const seen = new Set([head.response.id]);
  let id = head.previousResponseId;
  while (id !== undefined && !seen.has(id) && records.length < MAX_CHAIN) {
    seen.add(id);
    const record = await store.get(id);
    // A native response may continue a conversation only the upstream holds.
    if (!record) return records[records.length - 1].native === true ? { records: records.reverse(), cut: false } : { records: [], missing: id, cut: false };
    records.push(record);
    id = record.previousResponseId;
  }
  return { records: records.reverse(), cut: id !== undefined && !seen.has(id) };
}

const itemsOf = (records: readonly StoredResponse[]): Item[] => records.flatMap((record) => [...record.input, ...record.response.output]);

/** Everything the model of a stored response saw, plus what it answered; undefined when a link is gone. */
export async function conversationOf(store: ResponseStore, responseId: string): Promise<Item[] | undefined> {
  const head = await store.get(responseId);
  if (!head) return undefined;
  const chain = await chainOf(store, head);
  return chain.missing === undefined ? itemsOf(chain.records) : undefined;
}

/** A reasoning item sent back by id only (no encrypted content, no content): the store has the rest. */
export function isReasoningById(item: Item): item is Item & { id: string } {
  return isReasoning(item) && typeof item.id === 'string' && !item.encrypted_content && !Array.isArray(item.content);
}

/** Ids the request refers to without the item itself: item_reference, reasoning items sent by id only. */
export function referencedIds(items: readonly Item[]): string[] {
  const ids = new Set<string>();
  for (const item of items) {
    if (isReference(item) || isReasoningById(item)) ids.add(item.id);
  }
  return [...ids];
}

export interface LoadOptions {
  previousResponseId?: string;
  /** Look up calls and conversations for restoration (repair.restoreHistory). */
  restore: boolean;
}

/** A store failure where the request cannot do without the store: 503 with a clear code. */
const needed = (error: unknown): never => {
  throw isGatewayError(error) ? error : errors.responseStoreUnavailable();
};

export async function loadHistoryContext(store: ResponseStore, items: readonly Item[], options: LoadOptions): Promise<HistoryContext> {
  const context: HistoryContext = { previous: [], chain: [], previousUnknown: false, previousNative: false, referenced: new Map(), callResponses: new Map(), conversations: new Map(), findings: [] };
  if (options.previousResponseId !== undefined) await loadPrevious(store, options.previousResponseId, context).catch(needed);
  const ids = referencedIds(items);
  if (ids.length > 0) {
    const references = items.some(isReference);
    try {
      context.referenced = await store.getItems(ids);
    } catch (error) {
      if (references) needed(error);
      // Only reasoning items by id: they are dropped as unknown ones are.
      context.findings.push(unavailable('reasoning items sent by id only were dropped'));
    }
  }
  if (!options.restore || context.previousUnknown) return context;
  try {
    await loadRestoration(store, items, context);
  } catch (error) {
    if (isGatewayError(error)) throw error;
    context.callResponses = new Map();
    context.conversations = new Map();
    context.findings.push(unavailable('the history was not checked for restoration'));
  }
  return context;
}

const unavailable = (what: string): Finding => ({ kind: 'store_unavailable', index: -1, detail: `the response store could not be read: ${what}`, advisory: true });

async function loadPrevious(store: ResponseStore, id: string, context: HistoryContext): Promise<void> {
  const head = await store.get(id);
  if (!head) {
    context.previousUnknown = true;
    return;
  }
  const chain = await chainOf(store, head);
  if (chain.missing !== undefined) throw errors.previousResponseLinkNotFound(id, chain.missing);
  context.previous = itemsOf(chain.records);
  context.chain = chainAfter(head);
  context.previousNative = head.native === true;
  if (chain.cut) {
    const detail = `the previous_response_id chain is longer than ${MAX_CHAIN} responses: only the newest ${MAX_CHAIN} are sent`;
    context.findings.push({ kind: 'previous_context_truncated', index: -1, detail, advisory: true });
  }
}

async function loadRestoration(store: ResponseStore, items: readonly Item[], context: HistoryContext): Promise<void> {
  const view = expandReferences(items, context.referenced);
  const callIds = [...new Set(view.filter((item) => isFunctionCall(item) || isFunctionOutput(item)).map((item) => String(item.call_id)))];
  if (callIds.length === 0) return;
  context.callResponses = await store.findCallResponses(callIds);
  if (context.callResponses.size === 0) return;

  // Conversations needed: the current turn's anchor, and the owners of outputs whose call is missing.
  const wanted = new Set<string>();
  const anchor = anchorCall({ items, previous: context.previous, referenced: context.referenced, callResponses: context.callResponses });
  if (anchor !== undefined) wanted.add(context.callResponses.get(anchor) as string);
  const calls = new Set([...context.previous, ...view].filter(isFunctionCall).map((item) => item.call_id));
  for (const item of view) {
    if (isFunctionOutput(item) && !calls.has(item.call_id)) {
      const owner = context.callResponses.get(item.call_id);
      if (owner !== undefined) wanted.add(owner);
    }
  }
  for (const id of wanted) {
    const conversation = await conversationOf(store, id);
    if (conversation) context.conversations.set(id, conversation);
  }
}
