import { EntryCap, type StoreStats } from '../util/budget.js';
import { ANONYMOUS_SCOPE } from '../util/scope.js';
import type { ToolCall } from '../api/chat-types.js';
import { ByteRing, MAX_RING_BYTES, UTF16 } from './byte-ring.js';
import { callHash, KeyIndex, prefixHash } from './key-index.js';
import { markHasMeta, readEntry, readHead, storedCallMeta, storeEntry, withBody } from './stored-entry.js';
import { EMPTY_SNAPSHOT, type CallLedger, type LedgerEntry, type LedgerQuery, type LedgerSnapshot } from './types.js';

export const DEFAULT_LEDGER_MAX_BYTES = 16 * 1024 * 1024;
export const DEFAULT_LEDGER_MAX_ENTRY_BYTES = 1024 * 1024;

export interface MemoryLedgerOptions {
  /** Most assistant messages remembered (least recently used go beyond that). Default 10,000. */
  maxEntries?: number;
  /** How long an entry lives. Default 1 hour. */
  ttlMs?: number;
  /** Most bytes held (see LEDGER_SLOT_BYTES), every scope together; oldest go beyond that. Default 16 MiB. */
  maxBytes?: number;
  /** An entry larger than this is not stored (onOversize is told). Default 1 MiB. */
  maxEntryBytes?: number;
  onOversize?: (bytes: number, limit: number) => void;
  /** Clock override for tests (milliseconds; default performance.now). */
  clock?: { now: () => number };
}

// What an entry is counted for: its bytes in the ring (4 per head field for the field's key hash,
// then its text, UTF-8 or UTF-16LE) plus what it takes outside the ring, in typed arrays: its slot
// (8 Int32s and a Float64, with growth slack) and per head field an index position (3 Int32s at
// most half full). Bytes of an entry dropped early stay counted until the ring reclaims them.
export const LEDGER_SLOT_BYTES = 64;
export const LEDGER_KEY_BYTES = 28; // 4 in the ring + 24 in the index
const FIELD_COUNT_SHIFT = 8; // a slot's flags hold its head's field count (bar the scope) above this
const CALL_FIELDS_END = 0x7fff_ffff; // call ids are head fields 2 and on; the prefix is field 1
const DONE: Promise<void> = Promise.resolve(); // what record() hands back: one settled promise for every call

/**
 * The in-process ledger storage: entries as bytes in a ring outside the V8 heap (byte-ring.ts,
 * oldest reclaimed first, a byte budget and an entry-count bound), each the stored text of
 * stored-entry.ts behind its index keys' hashes; one index (key-index.ts) from scoped keys (prefix
 * fingerprint, call id) to entries. An entry that leaves (evicted, expired, replaced) leaves the
 * index. A lookup hit re-appends the entry (least recently used go first); TTL is checked on read.
 */
class LedgerMemory {
  private readonly ring: ByteRing;
  private readonly index: KeyIndex;
  private readonly cap: EntryCap;
  private readonly maxBytes: number;
  private readonly maxEntries: number;
  private readonly ttlMs: number;
  private readonly clock: { now: () => number };
  private hashes = new Int32Array(8); // the key hashes of the entry being written (head fields 1..n)

  constructor(options: MemoryLedgerOptions) {
    this.maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 10_000));
    this.maxBytes = Math.max(1, Math.floor(options.maxBytes ?? DEFAULT_LEDGER_MAX_BYTES));
    this.ttlMs = Math.max(1, Math.floor(options.ttlMs ?? 3_600_000));
    this.clock = options.clock ?? performance;
    const maxEntryBytes = Math.min(this.maxBytes, MAX_RING_BYTES, options.maxEntryBytes ?? DEFAULT_LEDGER_MAX_ENTRY_BYTES);
    this.cap = new EntryCap({ maxEntryBytes, onOversize: options.onOversize });
    this.ring = new ByteRing(Math.min(this.maxBytes, MAX_RING_BYTES), (slot) => this.unindex(slot));
    this.index = new KeyIndex((slot, field, scope, id) => {
      const head = readHead(this.headTextOf(slot));
      return head[0] === scope && head[field] === id;
    });
  }

  record(entry: LedgerEntry, scope: string): void {
    const callIds = distinctCallIds(entry.message.tool_calls);
    const now = this.clock.now();
    const existing = this.entriesOfCalls(scope, callIds, now);
    // Adapters record provider data (e.g. Gemini thought signatures) under the call ids before the
    // pipeline records the final message: per-call metadata is merged, never lost.
    if (entry.prefixFingerprint === '' && existing.length > 0) {
      for (const slot of existing) this.mergeMetaInto(slot, entry.callMeta, now);
      return;
    }
    if (entry.prefixFingerprint === '' && callIds.length === 0) return;
    const callMeta = existing.length === 0 ? entry.callMeta : mergeCallMeta([...existing.map((slot) => this.callMetaAt(slot)), entry.callMeta]);
    const text = storeEntry(callMeta === entry.callMeta ? entry : { ...entry, callMeta }, scope, callIds);
    const fields = 1 + callIds.length;
    if (this.hashes.length < fields) this.hashes = new Int32Array(fields * 2);
    this.hashes[0] = entry.prefixFingerprint === '' ? 0 : prefixHash(scope, entry.prefixFingerprint);
    for (let i = 0; i < callIds.length; i++) this.hashes[i + 1] = callHash(scope, callIds[i]);
    const slot = this.write(text, fields, now);
    if (slot === -1) return;
    // After the write: its evictions may have taken keys' previous entries out of the index.
    if (entry.prefixFingerprint !== '') this.point(this.hashes[0], scope, entry.prefixFingerprint, 1, slot);
    for (let i = 0; i < callIds.length; i++) this.point(this.hashes[i + 1], scope, callIds[i], i + 2, slot);
  }

  /** What the ledger knows of the query; a miss (most requests) is the shared EMPTY_SNAPSHOT, no maps built. */
  lookup(query: LedgerQuery, scope: string): LedgerSnapshot {
    let byCallId: Map<string, LedgerEntry> | undefined;
    let byPrefix: Map<string, LedgerEntry> | undefined;
    if (this.index.size === 0) return EMPTY_SNAPSHOT;
    const now = this.clock.now();
    // The entries parsed in this lookup by slot, made at the first hit and dropped with the lookup.
    // Not a Map on the ledger cleared per lookup: once that Map's table reached the old generation,
    // each clear() allocated the next table there and the dead table kept pointing at it, so every
    // entry a lookup parsed survived scavenges and was promoted (~400 B a hit) until a mark-compact.
    let parsed: Map<number, LedgerEntry> | undefined;
    for (const callId of query.callIds) {
      const slot = this.liveSlotOf(callHash(scope, callId), scope, callId, 2, CALL_FIELDS_END, now);
      if (slot === -1) continue;
      parsed ??= new Map();
      (byCallId ??= new Map()).set(callId, this.parsedAt(slot, parsed));
    }
    for (const fingerprint of query.prefixFingerprints) {
      const slot = this.liveSlotOf(prefixHash(scope, fingerprint), scope, fingerprint, 1, 1, now);
      if (slot === -1) continue;
      parsed ??= new Map();
      (byPrefix ??= new Map()).set(fingerprint, this.parsedAt(slot, parsed));
    }
    // A hit counts as use: the entry goes to the head of the ring (after the reads: a slot found
    // twice is one object).
    if (parsed !== undefined) {
      const hits = [...parsed.keys()].map((slot) => [slot, this.ring.generationOf(slot)]);
      for (const [slot, generation] of hits) {
        // One re-append may evict another hit, and its slot go to a new entry.
        if (this.ring.generationOf(slot) === generation) this.reappend(slot, this.textOf(slot), this.ring.startedAtOf(slot));
      }
    }
    if (byCallId === undefined && byPrefix === undefined) return EMPTY_SNAPSHOT;
    return { byCallId: byCallId ?? EMPTY_SNAPSHOT.byCallId, byPrefix: byPrefix ?? EMPTY_SNAPSHOT.byPrefix };
  }

  stats(): StoreStats {
    return { bytes: this.ring.heldBytes, entries: this.ring.live, maxBytes: this.maxBytes, rejected: this.cap.rejected };
  }

  get size(): number {
    return this.ring.live;
  }

  clear(): void {
    this.ring.clear();
    this.index.clear();
  }

  /** The live entries the given call ids point at, each once, in call order (expired ones are dropped). */
  private entriesOfCalls(scope: string, callIds: readonly string[], now: number): number[] {
    const slots: number[] = [];
    if (this.index.size === 0) return slots;
    for (const callId of callIds) {
      const slot = this.liveSlotOf(callHash(scope, callId), scope, callId, 2, CALL_FIELDS_END, now);
      if (slot !== -1 && !slots.includes(slot)) slots.push(slot);
    }
    return slots;
  }

  /** The entry a key points at, -1 for none; an expired one leaves (it is never returned). */
  private liveSlotOf(hash: number, scope: string, id: string, fromField: number, toField: number, now: number): number {
    const position = this.index.find(hash, scope, id, fromField, toField);
    if (position === -1) return -1;
    const slot = this.index.slotAt(position);
    if (now - this.ring.startedAtOf(slot) <= this.ttlMs) return slot;
    this.remove(slot);
    return -1;
  }

  /** Entry `slot` parsed back, once per lookup (`parsed`): a message found by its prefix and by its call ids is one object. */
  private parsedAt(slot: number, parsed: Map<number, LedgerEntry>): LedgerEntry {
    const known = parsed.get(slot);
    if (known) return known;
    const entry = readEntry(this.textOf(slot));
    parsed.set(slot, entry);
    return entry;
  }

  /** The callMeta of entry `slot` (no decoding when its mark says it has none). */
  private callMetaAt(slot: number): LedgerEntry['callMeta'] {
    const at = this.textStartOf(slot);
    return markHasMeta(this.ring.bytes[at]) ? storedCallMeta(this.textOf(slot)) : undefined;
  }

  /** Points a key at entry `slot`; the entry it pointed at before loses it (and goes when it has none left). */
  private point(hash: number, scope: string, id: string, field: number, slot: number): void {
    this.ring.addRefs(slot, 1);
    const position = field === 1 ? this.index.find(hash, scope, id, 1, 1) : this.index.find(hash, scope, id, 2, CALL_FIELDS_END);
    if (position === -1) {
      this.index.insert(hash, slot, field);
      return;
    }
    const previous = this.index.slotAt(position);
    this.index.repoint(position, slot, field);
    if (this.ring.addRefs(previous, -1) === 0) this.remove(previous);
  }

  /** Takes entry `slot` out of the index and marks it dead. */
  private remove(slot: number): void {
    this.unindex(slot);
    this.ring.drop(slot);
  }

  /** Takes every key still pointing at entry `slot` out of the index. */
  private unindex(slot: number): void {
    const fields = this.ring.flagsOf(slot) >>> FIELD_COUNT_SHIFT;
    const at = this.ring.offsetOf(slot);
    const bytes = this.ring.bytes;
    for (let field = 1; field <= fields; field++) this.index.remove(bytes.readInt32LE(at + (field - 1) * 4), slot, field);
    this.ring.addRefs(slot, -this.ring.addRefs(slot, 0));
  }

  /** Merges call metadata into entry `slot` (same keys; counts as a new write: TTL from now). */
  private mergeMetaInto(slot: number, callMeta: LedgerEntry['callMeta'], now: number): void {
    if (!callMeta) return;
    const text = this.textOf(slot);
    const stored = readEntry(text);
    this.reappend(slot, withBody(text, { ...stored, callMeta: mergeCallMeta([stored.callMeta, callMeta]) }), now);
  }

  /**
   * Entry `slot` written again at the head of the ring as `text` (its head unchanged), under the
   * keys that still point at it; the old bytes die. Refused (the entry stays) when over the cap.
   */
  private reappend(slot: number, text: string, startedAt: number): void {
    if (!this.ring.isLive(slot)) return; // a read in the same lookup may have evicted it
    const fields = this.ring.flagsOf(slot) >>> FIELD_COUNT_SHIFT;
    if (this.hashes.length < fields) this.hashes = new Int32Array(fields * 2);
    const at = this.ring.offsetOf(slot);
    for (let i = 0; i < fields; i++) this.hashes[i] = this.ring.bytes.readInt32LE(at + i * 4);
    const indexed: number[] = [];
    for (let field = 1; field <= fields; field++) if (this.index.remove(this.hashes[field - 1], slot, field)) indexed.push(field);
    if (!this.cap.admits(encodedBytes(text) + fields * 4 + LEDGER_SLOT_BYTES + fields * LEDGER_KEY_BYTES)) {
      for (const field of indexed) this.index.insert(this.hashes[field - 1], slot, field);
      return;
    }
    this.ring.addRefs(slot, -this.ring.addRefs(slot, 0));
    this.ring.drop(slot);
    const moved = this.write(text, fields, startedAt);
    for (const field of indexed) this.index.insert(this.hashes[field - 1], moved, field);
    this.ring.addRefs(moved, indexed.length);
  }

  /** Appends `text` under the key hashes in `this.hashes` (head fields 1..fields); its slot, -1 when over the cap. */
  private write(text: string, fields: number, startedAt: number): number {
    const wellFormed = isWellFormed(text);
    const textBytes = wellFormed ? Buffer.byteLength(text, 'utf8') : text.length * 2;
    const length = fields * 4 + textBytes;
    const counted = length + LEDGER_SLOT_BYTES + fields * LEDGER_KEY_BYTES;
    if (!this.cap.admits(counted)) return -1;
    const flags = (fields << FIELD_COUNT_SHIFT) | (wellFormed ? 0 : UTF16);
    const slot = this.ring.append(length, counted, this.maxBytes, this.maxEntries, flags, startedAt);
    const bytes = this.ring.bytes;
    let at = this.ring.offsetOf(slot);
    for (let i = 0; i < fields; i++, at += 4) bytes.writeInt32LE(this.hashes[i], at);
    bytes.write(text, at, textBytes, wellFormed ? 'utf8' : 'utf16le');
    return slot;
  }

  private textStartOf(slot: number): number {
    return this.ring.offsetOf(slot) + (this.ring.flagsOf(slot) >>> FIELD_COUNT_SHIFT) * 4;
  }

  /** Entry `slot`'s stored text. */
  private textOf(slot: number): string {
    const start = this.textStartOf(slot);
    const end = this.ring.offsetOf(slot) + this.ring.lengthOf(slot);
    return this.ring.bytes.toString((this.ring.flagsOf(slot) & UTF16) === 0 ? 'utf8' : 'utf16le', start, end);
  }

  /** The stored text up to its head's end (what readHead needs): a UTF-8 line feed is one byte, never inside another character. */
  private headTextOf(slot: number): string {
    if ((this.ring.flagsOf(slot) & UTF16) !== 0) return this.textOf(slot);
    const start = this.textStartOf(slot);
    const end = this.ring.bytes.indexOf(0x0a, start);
    return this.ring.bytes.toString('utf8', start, end + 1);
  }
}

/** Whether a text has no lone surrogate (then UTF-8 holds it exactly). */
function isWellFormed(text: string): boolean {
  return (text as unknown as { isWellFormed(): boolean }).isWellFormed();
}

function encodedBytes(text: string): number {
  return isWellFormed(text) ? Buffer.byteLength(text, 'utf8') : text.length * 2;
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
