import { LRUCache } from 'lru-cache';
import { EntryCap, latin1Bytes, stringBytes, type StoreStats } from '../state/budget.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../state/scope.js';
import type { ToolCall } from '../api/chat-types.js';
import { hasPlainHead, readEntry, readHead, storedCallMeta, storeEntry, withBody } from './stored-entry.js';
import { EMPTY_SNAPSHOT, type CallLedger, type LedgerEntry, type LedgerQuery, type LedgerSnapshot } from './types.js';

export const DEFAULT_LEDGER_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_LEDGER_MAX_ENTRY_BYTES = 1024 * 1024;

export interface MemoryLedgerOptions {
  /** Most assistant messages remembered (LRU beyond that). Default 10,000. */
  maxEntries?: number;
  /** How long an entry lives. Default 1 hour. */
  ttlMs?: number;
  /** Most bytes held (estimated), every scope together; LRU beyond that. Default 16 MiB. */
  maxBytes?: number;
  /** An entry larger than this is not stored (onOversize is told). Default 1 MiB. */
  maxEntryBytes?: number;
  onOversize?: (bytes: number, limit: number) => void;
  /** Clock override for tests (lru-cache `perf`). */
  clock?: { now: () => number };
}

const INDEX_KEY_BYTES = 64; // a Map entry and its key's header, besides the key's characters
// An entry's slot in lru-cache (its key map entry and the slots of its parallel arrays).
const SLOT_BYTES = 96;
const DONE: Promise<void> = Promise.resolve(); // what record() hands back: one settled promise for every call

/**
 * The in-process ledger storage: entries (each one string, see stored-entry.ts) in one lru-cache
 * with TTL and a byte budget (plus the entry-count bound), two plain indexes over them (prefix
 * fingerprint, call id) whose keys carry the tenant scope. An entry leaving the cache (evicted,
 * expired, replaced) leaves both indexes, so the budget bounds the indexes too.
 */
class LedgerMemory {
  private readonly entries: LRUCache<number, string>;
  private readonly byPrefix = new Map<string, number>();
  private readonly byCallId = new Map<string, number>();
  private readonly parsedInLookup = new Map<number, LedgerEntry>();
  private readonly cap: EntryCap;
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private nextId = 1;

  constructor(options: MemoryLedgerOptions) {
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 10_000));
    this.maxBytes = Math.max(1, Math.floor(options.maxBytes ?? DEFAULT_LEDGER_MAX_BYTES));
    this.cap = new EntryCap({ maxEntryBytes: Math.min(this.maxBytes, options.maxEntryBytes ?? DEFAULT_LEDGER_MAX_ENTRY_BYTES), onOversize: options.onOversize });
    this.entries = new LRUCache<number, string>({
      // maxSize, not `max`: lru-cache preallocates `max` slots up front (slow, tens of MB).
      // Each set passes its size (the entry's text and its index keys).
      maxSize: this.maxBytes,
      ttl: Math.max(1, Math.floor(options.ttlMs ?? 3_600_000)),
      ttlResolution: 0,
      ...(options.clock ? { perf: options.clock } : {}),
      dispose: (text, id) => this.unindex(text, id),
    });
  }

  record(entry: LedgerEntry, scope: string): void {
    const callIds = distinctCallIds(entry.message.tool_calls);
    const callKeys = callIds.map((id) => indexKey(scope, id));
    const existing = this.idsByCalls(callKeys);
    // Adapters record provider data (e.g. Gemini thought signatures) under the call ids before the
    // pipeline records the final message: per-call metadata is merged, never lost.
    if (entry.prefixFingerprint === '' && existing.length > 0) {
      for (const id of existing) this.mergeMetaInto(id, entry.callMeta);
      return;
    }
    const prefixKey = prefixKeyOf(scope, entry.prefixFingerprint);
    if (prefixKey === undefined && callKeys.length === 0) return;
    const callMeta = existing.length === 0 ? entry.callMeta : mergeCallMeta([...existing.map((id) => this.callMetaAt(id)), entry.callMeta]);
    const text = storeEntry(callMeta === entry.callMeta ? entry : { ...entry, callMeta }, scope, callIds);
    const bytes = sizeOf(text, prefixKey, callKeys);
    if (!this.cap.admits(bytes)) return;
    const id = this.nextId++;
    if (prefixKey !== undefined) this.point(this.byPrefix, prefixKey, id);
    for (const key of callKeys) this.point(this.byCallId, key, id);
    this.entries.set(id, text, { size: bytes });
    while (this.entries.size > this.maxEntries) this.entries.pop();
  }

  /** What the ledger knows of the query; a miss (most requests) is the shared EMPTY_SNAPSHOT, no maps built. */
  lookup(query: LedgerQuery, scope: string): LedgerSnapshot {
    let byCallId: Map<string, LedgerEntry> | undefined;
    let byPrefix: Map<string, LedgerEntry> | undefined;
    try {
      for (const callId of query.callIds) {
        const entry = this.parsedAt(this.byCallId.get(indexKey(scope, callId)));
        if (entry) (byCallId ??= new Map()).set(callId, entry);
      }
      for (const fingerprint of query.prefixFingerprints) {
        const entry = this.parsedAt(this.byPrefix.get(indexKey(scope, fingerprint)));
        if (entry) (byPrefix ??= new Map()).set(fingerprint, entry);
      }
    } finally {
      this.parsedInLookup.clear();
    }
    if (byCallId === undefined && byPrefix === undefined) return EMPTY_SNAPSHOT;
    return { byCallId: byCallId ?? EMPTY_SNAPSHOT.byCallId, byPrefix: byPrefix ?? EMPTY_SNAPSHOT.byPrefix };
  }

  stats(): StoreStats {
    return { bytes: this.entries.calculatedSize, entries: this.entries.size, maxBytes: this.maxBytes, rejected: this.cap.rejected };
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.entries.clear();
    this.byPrefix.clear();
    this.byCallId.clear();
  }

  /** The entries the given call keys point at, each once, in call order (a get per distinct entry: it counts as use). */
  private idsByCalls(callKeys: readonly string[]): number[] {
    const ids: number[] = [];
    if (this.byCallId.size === 0) return ids;
    for (const key of callKeys) {
      const id = this.byCallId.get(key);
      if (id === undefined || ids.includes(id)) continue;
      if (this.entries.get(id) !== undefined) ids.push(id);
    }
    return ids;
  }

  /**
   * Entry `id` parsed back (counts as use), once per lookup: a message found by its prefix and by
   * its call ids is one object. lookup is synchronous, so one map serves every lookup.
   */
  private parsedAt(id: number | undefined): LedgerEntry | undefined {
    if (id === undefined) return undefined;
    const known = this.parsedInLookup.get(id);
    if (known) return known;
    const text = this.entries.get(id);
    if (text === undefined) return undefined;
    const entry = readEntry(text);
    this.parsedInLookup.set(id, entry);
    return entry;
  }

  /** The callMeta of stored entry `id`, without counting as use (no parse when it has none). */
  private callMetaAt(id: number): LedgerEntry['callMeta'] {
    const text = this.entries.peek(id);
    return text === undefined ? undefined : storedCallMeta(text);
  }

  /** Points an index key at entry `id`; the entry it pointed at before loses it (and goes when it has none left). */
  private point(index: Map<string, number>, key: string, id: number): void {
    const previous = index.get(key);
    index.set(key, id);
    if (previous === undefined || previous === id) return;
    const text = this.entries.peek(previous);
    if (text !== undefined && !this.isIndexed(text, previous)) this.entries.delete(previous);
  }

  /** Whether an index key still points at entry `id`. */
  private isIndexed(text: string, id: number): boolean {
    // The head's fields read in place (no key object or arrays: this runs at every re-pointed key).
    const head = readHead(text);
    const scope = head[0];
    const prefixKey = prefixKeyOf(scope, head[1]);
    if (prefixKey !== undefined && this.byPrefix.get(prefixKey) === id) return true;
    for (let i = 2; i < head.length; i++) if (this.byCallId.get(indexKey(scope, head[i])) === id) return true;
    return false;
  }

  private unindex(text: string, id: number): void {
    const head = readHead(text);
    const scope = head[0];
    const prefixKey = prefixKeyOf(scope, head[1]);
    if (prefixKey !== undefined && this.byPrefix.get(prefixKey) === id) this.byPrefix.delete(prefixKey);
    for (let i = 2; i < head.length; i++) {
      const key = indexKey(scope, head[i]);
      if (this.byCallId.get(key) === id) this.byCallId.delete(key);
    }
  }

  /** Merges call metadata into entry `id` in place (same id, same keys) and re-counts its size. */
  private mergeMetaInto(id: number, callMeta: LedgerEntry['callMeta']): void {
    const text = this.entries.peek(id);
    if (text === undefined || !callMeta) return;
    const stored = readEntry(text);
    const updated = withBody(text, { ...stored, callMeta: mergeCallMeta([stored.callMeta, callMeta]) });
    const { prefixKey, callKeys } = keysOf(text);
    const bytes = sizeOf(updated, prefixKey, callKeys);
    if (!this.cap.admits(bytes)) return;
    // Same id and keys: no dispose, which would unindex them.
    this.entries.set(id, updated, { size: bytes, noDisposeOnSet: true });
  }
}

/** The index keys a stored entry was filed under, from its head (the same keys record() made). */
function keysOf(text: string): { prefixKey: string | undefined; callKeys: string[] } {
  const [scope, prefixFingerprint, ...callIds] = readHead(text);
  return { prefixKey: prefixKeyOf(scope, prefixFingerprint), callKeys: callIds.map((callId) => indexKey(scope, callId)) };
}

/** The prefix index key of a fingerprint ('' is none: an entry recorded for its call ids only). */
function prefixKeyOf(scope: string, prefixFingerprint: string): string | undefined {
  return prefixFingerprint === '' ? undefined : indexKey(scope, prefixFingerprint);
}

/** The distinct non-empty call ids of a message's calls, in call order. */
function distinctCallIds(calls: readonly ToolCall[] | undefined): string[] {
  const ids: string[] = [];
  if (!calls) return ids;
  for (const call of calls) {
    const id = call.id;
    if (typeof id === 'string' && id !== '' && !ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * The index key of an id (call id or fingerprint) in a scope. In the anonymous scope the id
 * itself (no string built per key, the common single-tenant case), with a leading NUL when it
 * holds one; in a key's scope `<scope>NUL<id>`. Scope ids are non-empty and hold no NUL, so no
 * key of one scope equals a key of another.
 */
export function indexKey(scope: string, id: string): string {
  if (scope !== ANONYMOUS_SCOPE) return scopedKey(scope, id);
  return id.includes('\u0000') ? `\u0000${id}` : id;
}

/** An entry's bytes: its text, its cache slot, and each index key (a Map entry and the key's characters). */
function sizeOf(text: string, prefixKey: string | undefined, callKeys: readonly string[]): number {
  const textBytes = stringBytes(text);
  // A key is its scope, a NUL and a head field, and a plain head holds each field as is: when the
  // text is one byte a character, so is every key (the figure a scan per key gives, without it).
  const oneByteKeys = hasPlainHead(text) && textBytes === latin1Bytes(text);
  let bytes = textBytes + SLOT_BYTES;
  if (prefixKey !== undefined) bytes += INDEX_KEY_BYTES + keyBytes(prefixKey, oneByteKeys);
  for (const key of callKeys) bytes += INDEX_KEY_BYTES + keyBytes(key, oneByteKeys);
  return bytes;
}

function keyBytes(key: string, oneByte: boolean): number {
  return oneByte ? latin1Bytes(key) : stringBytes(key);
}

/** A view of the memory ledger in one tenant scope; every view shares one storage and budget. */
export class MemoryLedger implements CallLedger {
  private readonly storage: LedgerMemory;

  constructor(
    options: MemoryLedgerOptions = {},
    private readonly scope = ANONYMOUS_SCOPE,
    storage?: LedgerMemory,
  ) {
    this.storage = storage ?? new LedgerMemory(options);
  }

  // Not `async`: the work is synchronous, and an async function per call costs the request path
  // a promise and a frame more. Same contract: a failure is a rejected promise, never a throw.
  record(entry: LedgerEntry): Promise<void> {
    try {
      this.storage.record(entry, this.scope);
      return DONE;
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  lookup(query: LedgerQuery): Promise<LedgerSnapshot> {
    try {
      return Promise.resolve(this.storage.lookup(query, this.scope));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  forScope(scope: string): CallLedger {
    return scope === this.scope ? this : new MemoryLedger({}, scope, this.storage);
  }

  stats(): StoreStats {
    return this.storage.stats();
  }

  /** Entries held, every scope (expired ones may linger until touched or evicted). */
  get size(): number {
    return this.storage.size;
  }

  async close(): Promise<void> {
    this.storage.clear();
  }
}

function mergeCallMeta(metas: Array<LedgerEntry['callMeta']>): LedgerEntry['callMeta'] {
  let merged: NonNullable<LedgerEntry['callMeta']> | undefined;
  for (const meta of metas) {
    if (!meta) continue;
    merged ??= {};
    for (const [callId, fields] of Object.entries(meta)) merged[callId] = { ...merged[callId], ...fields };
  }
  return merged;
}
