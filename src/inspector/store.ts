import { slimmed, summaryOf, type InspectorRecord, type Outcome, type RecordSummary } from './record.js';

// The inspector's records: a ring bounded in bytes, per instance. Each record is kept as its JSON
// (already scrubbed of secrets) with the summary the list filters on; the oldest go first when the
// total passes maxBytes. A record over maxRecordBytes is slimmed (no diff bodies, no text), and cut to
// its summary if that is still too big. Every record belongs to the scope of the gateway key that made it.

export interface StoreOptions {
  maxBytes: number;
  maxRecordBytes: number;
  /** Scrubs configured secrets from the record's JSON. */
  redact: (text: string) => string;
}

export interface RecordFilter {
  model?: string;
  provider?: string;
  outcome?: Outcome;
  hasRepairs?: boolean;
  hasFallback?: boolean;
  textCalls?: boolean;
  /** Epoch milliseconds: records that started at or after. */
  since?: number;
  /** Only records with a sequence number below this (the cursor of the previous page). */
  before?: number;
  /** A scope id, or undefined for every scope (an admin). */
  scope?: string;
}

interface Entry {
  seq: number;
  scope: string;
  summary: RecordSummary;
  startedMs: number;
  json: string;
  bytes: number;
}

/** Fixed cost per entry besides its strings (objects, map slots), so tiny records still count. */
const ENTRY_OVERHEAD = 256;

export class InspectorStore {
  private entries: Entry[] = [];
  private head = 0;
  private readonly byId = new Map<string, Entry[]>();
  private seq = 0;
  private total = 0;
  private evictedCount = 0;
  private cut = 0;

  constructor(private readonly options: StoreOptions) {}

  /** `rejected`: records cut to their summary (over maxRecordBytes even without diffs and text). */
  get stats(): { entries: number; bytes: number; evicted: number; rejected: number; maxBytes: number } {
    return { entries: this.entries.length - this.head, bytes: this.total, evicted: this.evictedCount, rejected: this.cut, maxBytes: this.options.maxBytes };
  }

  add(record: InspectorRecord, scope: string): void {
    let json = this.options.redact(JSON.stringify(record));
    if (Buffer.byteLength(json) > this.options.maxRecordBytes) json = this.options.redact(JSON.stringify(slimmed(record)));
    if (Buffer.byteLength(json) > this.options.maxRecordBytes) {
      json = this.options.redact(JSON.stringify({ ...summaryOf(record), truncated: true }));
      this.cut++;
    }
    const summary = JSON.parse(this.options.redact(JSON.stringify(summaryOf(record)))) as RecordSummary;
    const bytes = Buffer.byteLength(json) + Buffer.byteLength(JSON.stringify(summary)) + ENTRY_OVERHEAD;
    const entry: Entry = { seq: ++this.seq, scope, summary, startedMs: Date.parse(record.time), json, bytes };
    this.entries.push(entry);
    const same = this.byId.get(record.id);
    if (same) same.push(entry);
    else this.byId.set(record.id, [entry]);
    this.total += bytes;
    while (this.total > this.options.maxBytes && this.head < this.entries.length) this.evictOldest();
  }

  /** The record's JSON, when it exists in a scope the caller sees (undefined scope: every one). */
  get(id: string, scope: string | undefined): string | undefined {
    const found = this.byId.get(id);
    if (!found) return undefined;
    for (let index = found.length - 1; index >= 0; index--) if (scope === undefined || found[index].scope === scope) return found[index].json;
    return undefined;
  }

  /** Newest first; `next` is the cursor of the following page. */
  list(filter: RecordFilter, limit: number): { data: RecordSummary[]; next?: number } {
    const data: RecordSummary[] = [];
    for (let index = this.entries.length - 1; index >= this.head; index--) {
      const entry = this.entries[index];
      if (filter.before !== undefined && entry.seq >= filter.before) continue;
      if (filter.since !== undefined && entry.startedMs < filter.since) continue;
      if (!matches(entry, filter)) continue;
      if (data.length === limit) return { data, next: entry.seq + 1 };
      data.push(entry.summary);
    }
    return { data };
  }

  private evictOldest(): void {
    const entry = this.entries[this.head];
    this.entries[this.head] = undefined as unknown as Entry; // released for the collector
    this.head++;
    this.total -= entry.bytes;
    this.evictedCount++;
    // Entries of one id (clients may reuse an x-request-id) are in insertion order: the oldest is first.
    const same = this.byId.get(entry.summary.id);
    if (same?.[0] === entry) same.shift();
    if (same?.length === 0) this.byId.delete(entry.summary.id);
    // Compact once half the array is evicted slots: amortized O(1) per record.
    if (this.head > 1024 && this.head * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.head);
      this.head = 0;
    }
  }
}

function matches(entry: Entry, filter: RecordFilter): boolean {
  const s = entry.summary;
  if (filter.scope !== undefined && entry.scope !== filter.scope) return false;
  if (filter.model !== undefined && s.model !== filter.model && s.upstreamModel !== filter.model) return false;
  if (filter.provider !== undefined && s.provider !== filter.provider) return false;
  if (filter.outcome !== undefined && s.outcome !== filter.outcome) return false;
  if (filter.hasRepairs !== undefined && s.repairs > 0 !== filter.hasRepairs) return false;
  if (filter.hasFallback !== undefined && s.fallback !== filter.hasFallback) return false;
  if (filter.textCalls !== undefined && (s.textCalls !== undefined) !== filter.textCalls) return false;
  return true;
}
