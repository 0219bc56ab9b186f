import { LRUCache } from 'lru-cache';
import type { CallLedger, LedgerEntry, LedgerQuery, LedgerSnapshot } from './types.js';

export interface MemoryLedgerOptions {
  /** Most assistant messages remembered (LRU beyond that). Default 10,000. */
  maxEntries?: number;
  /** How long an entry lives. Default 1 hour. */
  ttlMs?: number;
  /** Bound on the call-id index; an entry holds several calls. Default 4 × maxEntries. */
  maxCallIds?: number;
  /** Clock override for tests (lru-cache `perf`). */
  clock?: { now: () => number };
}

/** The default in-process ledger: two LRU indexes over the same entries, both TTL + size bound. */
export class MemoryLedger implements CallLedger {
  private readonly byPrefix: LRUCache<string, LedgerEntry>;
  private readonly byCallId: LRUCache<string, LedgerEntry>;

  constructor(options: MemoryLedgerOptions = {}) {
    const maxEntries = Math.max(1, Math.floor(options.maxEntries ?? 10_000));
    const ttl = Math.max(1, Math.floor(options.ttlMs ?? 3_600_000));
    const common = { ttl, ttlResolution: 0, ...(options.clock ? { perf: options.clock } : {}) };
    // maxSize with unit sizes, not `max`: lru-cache preallocates `max` slots up front, which cost
    // hundreds of ms and tens of MB at every start for the default bound.
    const unit = { sizeCalculation: () => 1 };
    this.byCallId = new LRUCache<string, LedgerEntry>({
      maxSize: Math.max(1, Math.floor(options.maxCallIds ?? maxEntries * 4)),
      ...unit,
      ...common,
    });
    // An entry leaving the prefix index (evicted, expired, replaced) leaves the call-id index too,
    // so maxEntries bounds the memory of both.
    this.byPrefix = new LRUCache<string, LedgerEntry>({
      maxSize: maxEntries,
      ...unit,
      ...common,
      dispose: (entry) => {
        for (const call of entry.message.tool_calls ?? []) {
          if (this.byCallId.peek(call.id) === entry) this.byCallId.delete(call.id);
        }
      },
    });
  }

  async record(entry: LedgerEntry): Promise<void> {
    // A private copy of what callers could still change (the message and its calls); cheaper than
    // structuredClone, which was the ledger's whole cost on the hot path.
    const stored: LedgerEntry = {
      ...entry,
      message: {
        ...entry.message,
        ...(entry.message.tool_calls ? { tool_calls: entry.message.tool_calls.map((call) => ({ ...call, function: { ...call.function } })) } : {}),
      },
    };
    const calls = (stored.message.tool_calls ?? []).filter((call) => typeof call.id === 'string' && call.id !== '');
    const existing = calls.map((call) => this.byCallId.get(call.id)).filter((e): e is LedgerEntry => e !== undefined);
    // Adapters record provider data (e.g. Gemini thought signatures) under the call ids before the
    // pipeline records the final message: per-call metadata is merged, never lost.
    const callMeta = mergeCallMeta([...existing.map((e) => e.callMeta), stored.callMeta]);
    if (stored.prefixFingerprint === '' && existing.length > 0) {
      for (const entry of existing) entry.callMeta = mergeCallMeta([entry.callMeta, stored.callMeta]);
      return;
    }
    if (callMeta) stored.callMeta = callMeta;
    if (stored.prefixFingerprint !== '') this.byPrefix.set(stored.prefixFingerprint, stored);
    for (const call of calls) this.byCallId.set(call.id, stored);
  }

  async lookup(query: LedgerQuery): Promise<LedgerSnapshot> {
    const byCallId = new Map<string, LedgerEntry>();
    const byPrefix = new Map<string, LedgerEntry>();
    for (const id of query.callIds) {
      const entry = this.byCallId.get(id);
      if (entry) byCallId.set(id, entry);
    }
    for (const fingerprint of query.prefixFingerprints) {
      const entry = this.byPrefix.get(fingerprint);
      if (entry) byPrefix.set(fingerprint, entry);
    }
    return { byCallId, byPrefix };
  }

  /** Entries currently indexed by prefix (expired ones may linger until touched). */
  get size(): number {
    return this.byPrefix.size;
  }

  async close(): Promise<void> {
    this.byPrefix.clear();
    this.byCallId.clear();
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
