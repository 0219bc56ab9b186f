import t, { type Test } from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { CallLedger, LedgerEntry } from '../../src/ledger/types.js';

// The memory ledger keeps entries as bytes in a ring (byte-ring.ts) behind a hash index
// (key-index.ts). These runs drive it with random records, merges, lookups and clock steps in two
// scopes and compare every answer with a plain model of the documented behaviour (Maps and an
// array in recency order): a key never points at reclaimed or another entry's bytes.

/** mulberry32: a small seeded PRNG (the runs are reproducible). */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}

const TEXTS = ['', 'plain', 'émigré', 'погода 東京 🌦️', 'lone \ud800 surrogate', 'line\nfeed \u001f US', '"quotes" \\ {"a":1}'];
const SCOPES = ['', 'tenant-b'];

interface ModelEntry {
  scope: string;
  keys: string[]; // index keys (scope NUL kind NUL id)
  entry: LedgerEntry;
  startedAt: number;
}

/** The documented behaviour, in Maps: LRU by entry count, TTL checked on read, merges, re-pointed keys. */
class Model {
  readonly index = new Map<string, number>();
  readonly entries = new Map<number, ModelEntry>(); // insertion order = recency (oldest first)
  private nextId = 1;

  constructor(
    private readonly maxEntries: number,
    private readonly ttl: number,
  ) {}

  record(entry: LedgerEntry, scope: string, now: number): void {
    const callIds = [...new Set((entry.message.tool_calls ?? []).map((call) => call.id).filter((id) => id !== ''))];
    const existing: number[] = [];
    for (const callId of callIds) {
      const id = this.live(key(scope, 'c', callId), now);
      if (id !== undefined && !existing.includes(id)) existing.push(id);
    }
    if (entry.prefixFingerprint === '' && existing.length > 0) {
      for (const id of existing) {
        if (!entry.callMeta) continue;
        const held = this.entries.get(id)!;
        this.entries.delete(id);
        held.entry = { ...held.entry, callMeta: merge([held.entry.callMeta, entry.callMeta]) };
        held.startedAt = now;
        this.entries.set(id, held);
      }
      return;
    }
    if (entry.prefixFingerprint === '' && callIds.length === 0) return;
    const callMeta = existing.length === 0 ? entry.callMeta : merge([...existing.map((id) => this.entries.get(id)!.entry.callMeta), entry.callMeta]);
    while (this.entries.size >= this.maxEntries) this.remove(this.entries.keys().next().value!);
    const keys = [...(entry.prefixFingerprint === '' ? [] : [key(scope, 'p', entry.prefixFingerprint)]), ...callIds.map((callId) => key(scope, 'c', callId))];
    const id = this.nextId++;
    this.entries.set(id, { scope, keys, entry: structuredClone({ ...entry, callMeta }), startedAt: now });
    for (const indexKey of keys) {
      const previous = this.index.get(indexKey);
      this.index.set(indexKey, id);
      if (previous !== undefined && previous !== id && !this.entries.get(previous)!.keys.some((other) => this.index.get(other) === previous)) this.remove(previous);
    }
  }

  lookup(callIds: string[], fingerprints: string[], scope: string, now: number): { byCallId: Map<string, LedgerEntry>; byPrefix: Map<string, LedgerEntry> } {
    const hits: number[] = [];
    const find = (indexKey: string): LedgerEntry | undefined => {
      const id = this.live(indexKey, now);
      if (id === undefined) return undefined;
      if (!hits.includes(id)) hits.push(id);
      return this.entries.get(id)!.entry;
    };
    const byCallId = new Map<string, LedgerEntry>();
    const byPrefix = new Map<string, LedgerEntry>();
    for (const callId of callIds) {
      const found = find(key(scope, 'c', callId));
      if (found) byCallId.set(callId, found);
    }
    for (const fingerprint of fingerprints) {
      const found = find(key(scope, 'p', fingerprint));
      if (found) byPrefix.set(fingerprint, found);
    }
    for (const id of hits) {
      const held = this.entries.get(id)!;
      this.entries.delete(id);
      this.entries.set(id, held);
    }
    return { byCallId, byPrefix };
  }

  private live(indexKey: string, now: number): number | undefined {
    const id = this.index.get(indexKey);
    if (id === undefined) return undefined;
    if (now - this.entries.get(id)!.startedAt <= this.ttl) return id;
    this.remove(id);
    return undefined;
  }

  private remove(id: number): void {
    for (const indexKey of this.entries.get(id)!.keys) if (this.index.get(indexKey) === id) this.index.delete(indexKey);
    this.entries.delete(id);
  }
}

function key(scope: string, kind: string, id: string): string {
  return `${scope}\u0000${kind}\u0000${id}`;
}

/** JSON with keys sorted and undefined fields left out: equal values, equal text. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, field: unknown) =>
    field !== null && typeof field === 'object' && !Array.isArray(field) ? Object.fromEntries(Object.entries(field).sort(([a], [b]) => (a < b ? -1 : 1))) : field,
  );
}

function merge(metas: Array<LedgerEntry['callMeta']>): LedgerEntry['callMeta'] {
  let merged: NonNullable<LedgerEntry['callMeta']> | undefined;
  for (const meta of metas) {
    if (!meta) continue;
    merged ??= {};
    for (const [callId, fields] of Object.entries(meta)) merged[callId] = { ...merged[callId], ...fields };
  }
  return merged;
}

interface Run {
  seed: number;
  operations: number;
  ledger: { maxEntries: number; maxBytes: number; ttlMs: number };
  /** Largest argument text (bytes-bound runs use large ones, to wrap the ring often). */
  bigText: number;
  merges: boolean;
}

/** Random operations on the ledger and the model; every lookup compared. `exact`: the model also bounds by count only. */
async function drive(t: Test, run: Run, exact: boolean): Promise<void> {
  const random = prng(run.seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let now = 1_000;
  const base = new MemoryLedger({ ...run.ledger, clock: { now: () => now } });
  const views = new Map<string, CallLedger>(SCOPES.map((scope) => [scope, base.forScope(scope)]));
  const model = new Model(exact ? run.ledger.maxEntries : Number.MAX_SAFE_INTEGER, run.ledger.ttlMs);
  const callPool = Array.from({ length: 24 }, (_, i) => (i % 7 === 6 ? `call_${pick(TEXTS)}_${i}` : `call_${i}`));
  const fpPool = Array.from({ length: 10 }, (_, i) => `fp_${i}${i === 9 ? '\ud800' : ''}`);
  let mismatches = 0;
  let hits = 0;
  let serial = 0;
  let oversize = 0;
  for (let op = 0; op < run.operations && mismatches < 3; op++) {
    now += Math.floor(random() * random() * run.ledger.ttlMs * 0.2);
    const scope = pick(SCOPES);
    const roll = random();
    if (roll < 0.55) {
      const calls = Array.from({ length: Math.floor(random() * 3) }, () => pick(callPool));
      const merging = run.merges && random() < 0.15;
      const text = `${pick(TEXTS)} ${serial}`.padEnd(Math.floor(random() * random() * run.bigText), pick(['x', 'ж', '🌦']));
      const entry: LedgerEntry = {
        message: { role: 'assistant', content: random() < 0.5 ? null : pick(TEXTS), tool_calls: calls.map((id) => ({ id, type: 'function', function: { name: 'f', arguments: JSON.stringify({ text }) } })) },
        // No empty fingerprint when bounded by bytes: a record of call ids only merges into the entry
        // the model still holds, and would not in a ledger that let it go.
        prefixFingerprint: merging || (run.merges && random() < 0.1) ? '' : pick(fpPool),
        provider: 'p',
        model: 'm',
        createdAt: serial++,
        ...(random() < 0.3 && calls.length > 0 ? { callMeta: { [calls[0]]: { [`sig${serial % 3}`]: pick(TEXTS) } } } : {}),
      };
      const refused = base.stats().rejected;
      await views.get(scope)!.record(entry);
      // An entry over the cap (maxEntryBytes: here the whole budget) is not stored: nor in the model.
      if (base.stats().rejected === refused) model.record(entry, scope, now);
      else oversize++;
    } else {
      const callIds = Array.from({ length: 1 + Math.floor(random() * 4) }, () => pick(callPool));
      const fingerprints = Array.from({ length: Math.floor(random() * 3) }, () => pick(fpPool));
      const got = await views.get(scope)!.lookup({ callIds, prefixFingerprints: fingerprints });
      const want = model.lookup(callIds, fingerprints, scope, now);
      for (const [name, gotMap, wantMap] of [['byCallId', got.byCallId, want.byCallId], ['byPrefix', got.byPrefix, want.byPrefix]] as const) {
        for (const [id, found] of gotMap) {
          hits++;
          const expected = wantMap.get(id);
          // Bounded by bytes, the ledger may have let more go than the count-bound model: what it
          // returns must still be the newest entry recorded under that key, never other bytes.
          const same = expected !== undefined && (exact ? canonical(found) === canonical(expected) : canonical(found.message) === canonical(expected.message) && found.createdAt === expected.createdAt && found.prefixFingerprint === expected.prefixFingerprint);
          if (!same) {
            mismatches++;
            t.fail(`op ${op}: ${name} ${JSON.stringify(id)} in scope ${JSON.stringify(scope)} gave createdAt ${found.createdAt}, the model ${expected?.createdAt}`);
          }
        }
        if (exact && gotMap.size !== wantMap.size) {
          mismatches++;
          t.fail(`op ${op}: ${name} found ${[...gotMap.keys()].join(',')}, the model ${[...wantMap.keys()].join(',')}`);
        }
      }
    }
    const stats = base.stats();
    if (stats.bytes! > run.ledger.maxBytes || stats.entries! > run.ledger.maxEntries || (exact && stats.entries !== model.entries.size)) {
      mismatches++;
      t.fail(`op ${op}: ${stats.entries} entries, ${stats.bytes} bytes (model ${model.entries.size})`);
    }
  }
  t.equal(mismatches, 0, `seed ${run.seed}: ${run.operations} operations, ${hits} hits compared`);
  t.ok(hits > run.operations / 20, 'the run looked things up and found them');
  if (run.ledger.maxBytes < run.bigText * 4) t.ok(oversize > 0, `${oversize} entries over the cap refused`);
}

t.test('bounded by entries: every answer is the model\'s (LRU, TTL, merges, re-pointed keys, two scopes)', async (t) => {
  for (const seed of [1, 2, 3]) {
    await drive(t, { seed, operations: 3_000, ledger: { maxEntries: 12, maxBytes: 64 * 1024 * 1024, ttlMs: 5_000 }, bigText: 600, merges: true }, true);
  }
});

t.test('bounded by bytes: the ring wraps and grows, and what a key finds is always its newest entry', async (t) => {
  for (const seed of [4, 5, 6]) {
    await drive(t, { seed, operations: 3_000, ledger: { maxEntries: 10_000, maxBytes: 200_000, ttlMs: 50_000 }, bigText: 30_000, merges: false }, false);
  }
  // and a budget smaller than the ring's first allocation
  await drive(t, { seed: 7, operations: 2_000, ledger: { maxEntries: 10_000, maxBytes: 20_000, ttlMs: 50_000 }, bigText: 6_000, merges: false }, false);
});
