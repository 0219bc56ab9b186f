import { LRUCache } from 'lru-cache';
import { EntryCap, stringBytes, type StoreStats } from '../state/budget.js';
import { entryBytes } from './entry-bytes.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../state/scope.js';
import type { ToolCall } from '../api/chat-types.js';
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

/**
 * One remembered message and the index keys (scoped, as the index maps hold them) that point at it.
 * Each key string is the one its map holds: no kind-prefixed copy per key (the `p`/`c` layout
 * before kept two strings per key and sliced a third at every eviction).
 */
interface Held {
  entry: LedgerEntry;
  /** The scoped prefix fingerprint, while `byPrefix` points it here. */
  prefixKey: string | undefined;
  /** The scoped call ids `byCallId` points here; distinct (a small array: one or a few keys). */
  callKeys: string[];
  bytes: number;
}

const INDEX_KEY_BYTES = 64; // a Map entry and its key's header, besides the key's characters
const DONE: Promise<void> = Promise.resolve(); // what record() hands back: one settled promise for every call

/**
 * The in-process ledger storage: entries in one lru-cache with TTL and a byte budget (plus the
 * entry-count bound), two plain indexes over them (prefix fingerprint, call id) whose keys carry
 * the tenant scope. An entry leaving the cache (evicted, expired, replaced) leaves both indexes,
 * so the budget bounds the indexes too.
 */
class LedgerMemory {
  private readonly entries: LRUCache<number, Held>;
  private readonly byPrefix = new Map<string, number>();
  private readonly byCallId = new Map<string, number>();
  private readonly cap: EntryCap;
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private nextId = 1;

  constructor(options: MemoryLedgerOptions) {
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 10_000));
    this.maxBytes = Math.max(1, Math.floor(options.maxBytes ?? DEFAULT_LEDGER_MAX_BYTES));
    this.cap = new EntryCap({ maxEntryBytes: Math.min(this.maxBytes, options.maxEntryBytes ?? DEFAULT_LEDGER_MAX_ENTRY_BYTES), onOversize: options.onOversize });
    this.entries = new LRUCache<number, Held>({
      // maxSize, not `max`: lru-cache preallocates `max` slots up front (slow, tens of MB).
      maxSize: this.maxBytes,
      sizeCalculation: (held) => held.bytes,
      ttl: Math.max(1, Math.floor(options.ttlMs ?? 3_600_000)),
      ttlResolution: 0,
      ...(options.clock ? { perf: options.clock } : {}),
      dispose: (held, id) => this.unindex(held, id),
    });
  }

  record(entry: LedgerEntry, scope: string): void {
    // A private copy of what callers could still change (the message and its calls); cheaper than
    // structuredClone, which was the ledger's whole cost on the hot path.
    const source = entry.message;
    const sourceCalls = source.tool_calls;
    const calls: ToolCall[] = [];
    const stored: LedgerEntry = { ...entry, message: sourceCalls ? { ...source, tool_calls: copyCalls(sourceCalls, calls) } : { ...source } };
    // Scoped once: the same strings find the entries the calls already have and become the index keys.
    const callKeys: string[] = [];
    for (const call of calls) {
      const key = scopedKey(scope, call.id);
      if (!callKeys.includes(key)) callKeys.push(key);
    }
    const existing = this.heldByCalls(callKeys);
    // Adapters record provider data (e.g. Gemini thought signatures) under the call ids before the
    // pipeline records the final message: per-call metadata is merged, never lost.
    const callMeta = existing.length === 0 && !stored.callMeta ? undefined : mergeCallMeta([...existing.map((held) => held.entry.callMeta), stored.callMeta]);
    if (stored.prefixFingerprint === '' && existing.length > 0) {
      for (const held of existing) {
        const merged = mergeCallMeta([held.entry.callMeta, stored.callMeta]);
        if (merged) this.resize(held, { ...held.entry, callMeta: merged });
      }
      return;
    }
    if (callMeta) stored.callMeta = callMeta;
    const prefixKey = stored.prefixFingerprint !== '' ? scopedKey(scope, stored.prefixFingerprint) : undefined;
    if (prefixKey === undefined && callKeys.length === 0) return;
    const held: Held = { entry: stored, prefixKey, callKeys, bytes: 0 };
    held.bytes = sizeOf(held);
    if (!this.cap.admits(held.bytes)) return;
    const id = this.nextId++;
    if (prefixKey !== undefined) this.point(this.byPrefix, prefixKey, id);
    for (const key of callKeys) this.point(this.byCallId, key, id);
    this.entries.set(id, held);
    while (this.entries.size > this.maxEntries) this.entries.pop();
  }

  /** What the ledger knows of the query; a miss (most requests) is the shared EMPTY_SNAPSHOT, no maps built. */
  lookup(query: LedgerQuery, scope: string): LedgerSnapshot {
    let byCallId: Map<string, LedgerEntry> | undefined;
    let byPrefix: Map<string, LedgerEntry> | undefined;
    for (const callId of query.callIds) {
      const entry = this.entryAt(this.byCallId.get(scopedKey(scope, callId)));
      if (entry) (byCallId ??= new Map()).set(callId, entry);
    }
    for (const fingerprint of query.prefixFingerprints) {
      const entry = this.entryAt(this.byPrefix.get(scopedKey(scope, fingerprint)));
      if (entry) (byPrefix ??= new Map()).set(fingerprint, entry);
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

  /** The entries the given scoped call ids point at, each once, in call order (a get per distinct id: it counts as use). */
  private heldByCalls(callKeys: readonly string[]): Held[] {
    const held: Held[] = [];
    if (this.byCallId.size === 0) return held;
    const seen: number[] = [];
    for (const key of callKeys) {
      const id = this.byCallId.get(key);
      if (id === undefined || seen.includes(id)) continue;
      seen.push(id);
      const found = this.entries.get(id);
      if (found !== undefined) held.push(found);
    }
    return held;
  }

  private entryAt(id: number | undefined): LedgerEntry | undefined {
    return id === undefined ? undefined : this.entries.get(id)?.entry;
  }

  /** Points an index key at entry `id`; the entry it pointed at before loses it (and goes when it has none left). */
  private point(index: Map<string, number>, key: string, id: number): void {
    const previous = index.get(key);
    index.set(key, id);
    if (previous === undefined || previous === id) return;
    const held = this.entries.peek(previous);
    if (!held) return;
    if (index === this.byPrefix) {
      if (held.prefixKey === key) held.prefixKey = undefined;
    } else {
      const at = held.callKeys.indexOf(key);
      if (at >= 0) held.callKeys.splice(at, 1);
    }
    if (held.prefixKey === undefined && held.callKeys.length === 0) this.entries.delete(previous);
  }

  private unindex(held: Held, id: number): void {
    if (held.prefixKey !== undefined && this.byPrefix.get(held.prefixKey) === id) this.byPrefix.delete(held.prefixKey);
    for (const key of held.callKeys) {
      if (this.byCallId.get(key) === id) this.byCallId.delete(key);
    }
  }

  /** Replaces an entry's content in place (same id, same keys) and re-counts its size. */
  private resize(held: Held, entry: LedgerEntry): void {
    const id = this.idOf(held);
    if (id === undefined) return;
    const updated: Held = { entry, prefixKey: held.prefixKey, callKeys: held.callKeys, bytes: 0 };
    updated.bytes = sizeOf(updated);
    if (!this.cap.admits(updated.bytes)) return;
    // A new value (lru-cache re-counts the size only for a different object), same id and keys:
    // no dispose, which would unindex them.
    this.entries.set(id, updated, { noDisposeOnSet: true });
  }

  private idOf(held: Held): number | undefined {
    if (held.prefixKey !== undefined) {
      const id = this.byPrefix.get(held.prefixKey);
      if (id !== undefined && this.entries.peek(id) === held) return id;
    }
    for (const key of held.callKeys) {
      const id = this.byCallId.get(key);
      if (id !== undefined && this.entries.peek(id) === held) return id;
    }
    return undefined;
  }
}

/** Copies of the calls (and their functions) for the stored message; the ones with an id are also added to `withIds`. */
function copyCalls(calls: readonly ToolCall[], withIds: ToolCall[]): ToolCall[] {
  const copies = new Array<ToolCall>(calls.length);
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i];
    const copy = { ...call, function: { ...call.function } };
    copies[i] = copy;
    if (typeof copy.id === 'string' && copy.id !== '') withIds.push(copy);
  }
  return copies;
}

function sizeOf(held: Held): number {
  let bytes = entryBytes(held.entry);
  if (held.prefixKey !== undefined) bytes += keyBytes(held.prefixKey);
  for (const key of held.callKeys) bytes += keyBytes(key);
  return bytes;
}

const EMPTY_STRING_BYTES = stringBytes('');

/**
 * An index key's bytes as the ledger has always counted them: its characters plus a one-character
 * kind mark (`p`/`c`, which keys carried before), two bytes for it when the key is two-byte.
 * The same figure as stringBytes(mark + key), without building that string.
 */
function keyBytes(key: string): number {
  const bytes = stringBytes(key);
  return INDEX_KEY_BYTES + bytes + (bytes - EMPTY_STRING_BYTES > key.length ? 2 : 1);
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
