import { LRUCache } from 'lru-cache';
import type { Item, ResponseObject } from './types.js';

// Responses API state: every stored response (for GET, previous_response_id and input_items),
// every item by id (item_reference, reasoning items sent back by id) and every function call the
// gateway returned by call_id (history restoration). Async throughout and keyed by plain ids, so
// a Redis implementation maps one to one: `resp:{id}` → record JSON, `item:{id}` → {responseId,
// item}, `call:{call_id}` → response id, each with the same TTL.

export interface StoredResponse {
  /** The response object exactly as the client got it (id, status, output, usage, …). */
  response: ResponseObject;
  /** This request's own input items, resolved (no item_reference) and with ids: what input_items lists. */
  input: Item[];
  /** The response this one continued (its context comes before `input`). */
  previousResponseId?: string;
  /** Produced by an upstream's own /responses (it knows the id and the item ids too). */
  native?: boolean;
}

export interface ResponseStore {
  /** Stores a response; indexes its input and output items by id and its function calls by call_id. */
  put(record: StoredResponse): Promise<void>;
  get(id: string): Promise<StoredResponse | undefined>;
  /** Removes a response and the index entries it owns; false when it was not there. */
  delete(id: string): Promise<boolean>;
  /** Stored items by id; unknown ids are absent from the map. */
  getItems(ids: readonly string[]): Promise<Map<string, Item>>;
  /** For call ids the gateway returned: the id of the response whose output holds that call. */
  findCallResponses(callIds: readonly string[]): Promise<Map<string, string>>;
  close?(): Promise<void>;
}

export interface MemoryResponseStoreOptions {
  /** How long a response and its items live. */
  ttlMs: number;
  /** Most responses kept (least recently used dropped first); items and calls are bounded in proportion. */
  maxEntries: number;
  /** Clock override for tests (lru-cache `perf`). */
  clock?: { now: () => number };
}

interface ItemEntry {
  responseId: string;
  item: Item;
}

/** The default store: lru-cache maps with TTL and size bounds, deep copies in and out. */
export function createMemoryResponseStore(options: MemoryResponseStoreOptions): ResponseStore {
  const max = Math.max(1, Math.floor(options.maxEntries));
  // maxSize with unit sizes rather than `max`: lru-cache preallocates `max` slots up front, which for
  // the default 100,000 responses (and 16× as many items) costs ~0.7 s and tens of MB at startup.
  const bound = (limit: number): { maxSize: number; sizeCalculation: () => number } => ({ maxSize: limit, sizeCalculation: () => 1 });
  const common = { ttl: Math.max(1, Math.floor(options.ttlMs)), ttlResolution: 0, ...(options.clock ? { perf: options.clock } : {}) };
  const responses = new LRUCache<string, StoredResponse>({ ...bound(max), ...common });
  const items = new LRUCache<string, ItemEntry>({ ...bound(max * 16), ...common });
  const calls = new LRUCache<string, string>({ ...bound(max * 8), ...common });

  return {
    async put(record) {
      const stored = structuredClone(record);
      const id = stored.response.id;
      responses.set(id, stored);
      // Output items are this response's own; echoed input items keep the first response that had them.
      for (const item of stored.response.output) {
        if (typeof item.id === 'string') items.set(item.id, { responseId: id, item });
        if (item.type === 'function_call' && typeof item.call_id === 'string') calls.set(item.call_id, id);
      }
      for (const item of stored.input) {
        if (typeof item.id === 'string' && !items.has(item.id)) items.set(item.id, { responseId: id, item });
      }
    },
    async get(id) {
      const record = responses.get(id);
      return record ? structuredClone(record) : undefined;
    },
    async delete(id) {
      const record = responses.get(id);
      if (!record) return false;
      responses.delete(id);
      for (const item of [...record.response.output, ...record.input]) {
        if (typeof item.id === 'string' && items.get(item.id)?.responseId === id) items.delete(item.id);
        if (item.type === 'function_call' && typeof item.call_id === 'string' && calls.get(item.call_id) === id) calls.delete(item.call_id);
      }
      return true;
    },
    async getItems(ids) {
      const found = new Map<string, Item>();
      for (const id of ids) {
        const entry = items.get(id);
        if (entry) found.set(id, structuredClone(entry.item));
      }
      return found;
    },
    async findCallResponses(callIds) {
      const found = new Map<string, string>();
      for (const callId of callIds) {
        const id = calls.get(callId);
        if (id !== undefined) found.set(callId, id);
      }
      return found;
    },
    async close() {
      responses.clear();
      items.clear();
      calls.clear();
    },
  };
}
