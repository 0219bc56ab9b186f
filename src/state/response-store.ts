import { LRUCache } from 'lru-cache';
import { approxBytes, EntryCap, stringBytes, type StoreStats } from '../util/budget.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../util/scope.js';
import type { Item, ResponseObject } from '../api/responses-types.js';

// Responses API state: every stored response (for GET, previous_response_id and input_items),
// every item by id (item_reference, reasoning items sent back by id) and every function call the
// gateway returned by call_id (history restoration). Async throughout and keyed by plain ids, so
// a Redis implementation maps one to one: `resp:{id}` → record JSON, `item:{id}` → {responseId,
// item}, `call:{call_id}` → response id, each with the same TTL.
//
// Every id lives in the tenant scope of the gateway key that stored it (src/util/scope.ts): a
// store object is a view of one scope, `forScope` gives another key's view of the same storage.

export const DEFAULT_RESPONSES_MAX_BYTES = 32 * 1024 * 1024;
export const DEFAULT_RESPONSES_MAX_ENTRY_BYTES = 8 * 1024 * 1024;

export interface StoredResponse {
  /** The response object exactly as the client got it (id, status, output, usage, …). */
  response: ResponseObject;
  /** This request's own input items, resolved (no item_reference) and with ids: what input_items lists. */
  input: Item[];
  /** The response this one continued (its context comes before `input`). */
  previousResponseId?: string;
  /** Produced by an upstream's own /responses (it knows the id and the item ids too). */
  native?: boolean;
  /**
   * The ids of the responses before this one, oldest first (at most responses/context.ts MAX_CHAIN - 1):
   * its whole context is read in one more round trip. Absent on records stored by older versions.
   */
  chain?: string[];
}

export interface ResponseStore {
  /** Stores a response; indexes its input and output items by id and its function calls by call_id. */
  put(record: StoredResponse): Promise<void>;
  get(id: string): Promise<StoredResponse | undefined>;
  /** Stored responses by id, without their `chain` (read per link, it would cost chain² bytes); unknown ids are absent. */
  getMany(ids: readonly string[]): Promise<Map<string, StoredResponse>>;
  /** Removes a response and the index entries it owns; false when it was not there. */
  delete(id: string): Promise<boolean>;
  /** Stored items by id; unknown ids are absent from the map. */
  getItems(ids: readonly string[]): Promise<Map<string, Item>>;
  /** For call ids the gateway returned: the id of the response whose output holds that call. */
  findCallResponses(callIds: readonly string[]): Promise<Map<string, string>>;
  /** The same storage as the gateway key with this scope id sees it. */
  forScope(scope: string): ResponseStore;
  /** Size of the whole storage, every scope (for /metrics). */
  stats?(): StoreStats;
  close?(): Promise<void>;
}

export interface MemoryResponseStoreOptions {
  /** How long a response and its items live. */
  ttlMs: number;
  /** Most responses kept (least recently used dropped first). */
  maxEntries: number;
  /** Most bytes held (estimated), every scope together; least recently used dropped first. Default 32 MiB. */
  maxBytes?: number;
  /** A response larger than this (with its input) is not stored (onOversize is told). Default 8 MiB. */
  maxEntryBytes?: number;
  onOversize?: (bytes: number, limit: number) => void;
  /** Clock override for tests (lru-cache `perf`). */
  clock?: { now: () => number };
}

/** A stored response and the index keys it owns (items by id, calls by call_id). */
interface Held {
  record: StoredResponse;
  items: string[];
  calls: string[];
  bytes: number;
}

interface ItemEntry {
  /** Scoped key of the response that owns the item. */
  owner: string;
  item: Item;
}

const INDEX_KEY_BYTES = 64; // a Map entry and its key's header, besides the key's characters

/** The default store: one lru-cache of responses (TTL, byte budget, count bound) and two indexes over them. */
export function createMemoryResponseStore(options: MemoryResponseStoreOptions): ResponseStore {
  const maxEntries = Math.max(1, Math.floor(options.maxEntries));
  const maxBytes = Math.max(1, Math.floor(options.maxBytes ?? DEFAULT_RESPONSES_MAX_BYTES));
  const cap = new EntryCap({ maxEntryBytes: Math.min(maxBytes, options.maxEntryBytes ?? DEFAULT_RESPONSES_MAX_ENTRY_BYTES), onOversize: options.onOversize });
  // Index entries point into their response's own objects and leave with it (dispose), so the
  // response cache's budget bounds them too.
  const items = new Map<string, ItemEntry>();
  const calls = new Map<string, string>();
  const responses = new LRUCache<string, Held>({
    // maxSize, not `max`: lru-cache preallocates `max` slots up front (slow, tens of MB).
    maxSize: maxBytes,
    sizeCalculation: (held) => held.bytes,
    ttl: Math.max(1, Math.floor(options.ttlMs)),
    ttlResolution: 0,
    ...(options.clock ? { perf: options.clock } : {}),
    dispose: (held, key) => {
      for (const itemKey of held.items) if (items.get(itemKey)?.owner === key) items.delete(itemKey);
      for (const callKey of held.calls) if (calls.get(callKey) === key) calls.delete(callKey);
    },
  });

  function put(scope: string, record: StoredResponse): void {
    const key = scopedKey(scope, record.response.id);
    const held: Held = { record, items: [], calls: [], bytes: approxBytes(record) };
    // Output items are this response's own; echoed input items keep the first live response that had them.
    for (const item of record.response.output) {
      if (typeof item.id === 'string') held.items.push(scopedKey(scope, item.id));
      if (item.type === 'function_call' && typeof item.call_id === 'string') held.calls.push(scopedKey(scope, item.call_id));
    }
    for (const item of record.input) {
      if (typeof item.id !== 'string') continue;
      const itemKey = scopedKey(scope, item.id);
      const current = items.get(itemKey);
      if (!current || current.owner === key || !responses.has(current.owner)) held.items.push(itemKey);
    }
    for (const indexKey of [...held.items, ...held.calls]) held.bytes += INDEX_KEY_BYTES + stringBytes(indexKey);
    if (!cap.admits(held.bytes)) return;
    const stored = structuredClone(held);
    responses.set(key, stored);
    if (!responses.has(key)) return;
    // The index points at the store's own copies; an id both in the output and the input is the output's.
    const copies = new Map<string, Item>();
    for (const item of [...stored.record.input, ...stored.record.response.output]) {
      if (typeof item.id === 'string') copies.set(scopedKey(scope, item.id), item);
    }
    for (const itemKey of stored.items) {
      const item = copies.get(itemKey);
      if (item) items.set(itemKey, { owner: key, item });
    }
    for (const callKey of stored.calls) calls.set(callKey, key);
    while (responses.size > maxEntries) responses.pop();
  }

  function live(scope: string, id: string): Held | undefined {
    return responses.get(scopedKey(scope, id));
  }

  function view(scope: string): ResponseStore {
    const self: ResponseStore = {
      async put(record) {
        put(scope, record);
      },
      async get(id) {
        const held = live(scope, id);
        return held ? structuredClone(held.record) : undefined;
      },
      async getMany(ids) {
        const found = new Map<string, StoredResponse>();
        for (const id of ids) {
          const held = live(scope, id);
          if (!held) continue;
          const { chain: _chain, ...record } = held.record;
          found.set(id, structuredClone(record));
        }
        return found;
      },
      async delete(id) {
        // An expired response is not there: get() drops it (and its index entries) and says so.
        const key = scopedKey(scope, id);
        return responses.get(key) !== undefined && responses.delete(key);
      },
      async getItems(ids) {
        const found = new Map<string, Item>();
        for (const id of ids) {
          const entry = items.get(scopedKey(scope, id));
          // get() also drops an expired owner (and, through dispose, its index entries).
          if (entry && responses.get(entry.owner)) found.set(id, structuredClone(entry.item));
        }
        return found;
      },
      async findCallResponses(callIds) {
        const found = new Map<string, string>();
        for (const callId of callIds) {
          const owner = calls.get(scopedKey(scope, callId));
          const held = owner === undefined ? undefined : responses.get(owner);
          if (held) found.set(callId, held.record.response.id);
        }
        return found;
      },
      forScope: (other) => (other === scope ? self : view(other)),
      stats: () => ({ bytes: responses.calculatedSize, entries: responses.size, maxBytes, rejected: cap.rejected }),
      async close() {
        responses.clear();
        items.clear();
        calls.clear();
      },
    };
    return self;
  }

  return view(ANONYMOUS_SCOPE);
}
