import t from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { EMPTY_SNAPSHOT, type LedgerEntry } from '../../src/ledger/types.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';

const entry = (fp: string, ...ids: string[]): LedgerEntry => ledgerEntry(fp, ids);

t.test('record then lookup by call id and by prefix', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entry('fp1', 'a', 'b'));
  const snap = await ledger.lookup({ callIds: ['a', 'b', 'zz'], prefixFingerprints: ['fp1', 'nope'] });
  t.same([...snap.byCallId.keys()], ['a', 'b']);
  t.same([...snap.byPrefix.keys()], ['fp1']);
  t.equal(snap.byCallId.get('a'), snap.byPrefix.get('fp1'), 'one stored entry behind both indexes');
});

t.test('stores a copy: later mutation by the caller does not leak in', async (t) => {
  const ledger = new MemoryLedger();
  const e = entry('fp', 'a');
  await ledger.record(e);
  e.message.tool_calls![0].function.name = 'changed';
  const snap = await ledger.lookup({ callIds: ['a'], prefixFingerprints: [] });
  t.equal(snap.byCallId.get('a')!.message.tool_calls![0].function.name, 'f');
});

t.test('TTL: entries expire', async (t) => {
  let now = 1_000;
  const ledger = new MemoryLedger({ ttlMs: 5_000, clock: { now: () => now } });
  await ledger.record(entry('fp', 'a'));
  now += 4_999;
  t.equal((await ledger.lookup({ callIds: ['a'], prefixFingerprints: ['fp'] })).byPrefix.size, 1);
  now += 2;
  const snap = await ledger.lookup({ callIds: ['a'], prefixFingerprints: ['fp'] });
  t.equal(snap.byPrefix.size, 0);
  t.equal(snap.byCallId.size, 0);
});

t.test('size bound: least recently used entries are evicted', async (t) => {
  const ledger = new MemoryLedger({ maxEntries: 3 });
  for (let i = 0; i < 10; i++) await ledger.record(entry(`fp${i}`, `id${i}`));
  t.equal(ledger.size, 3);
  const snap = await ledger.lookup({ callIds: ['id0', 'id9'], prefixFingerprints: ['fp0', 'fp7', 'fp8', 'fp9'] });
  t.same([...snap.byPrefix.keys()], ['fp7', 'fp8', 'fp9']);
  t.same([...snap.byCallId.keys()], ['id9']);
});

t.test('close clears', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entry('fp', 'a'));
  await ledger.close();
  t.equal(ledger.size, 0);
});

t.test('callMeta recorded by an adapter survives the pipeline record of the same calls', async (t) => {
  const ledger = new MemoryLedger({ maxEntries: 10, ttlMs: 60_000 });
  const call = { id: 'call_gem1', type: 'function' as const, function: { name: 'get_weather', arguments: '{}' } };
  await ledger.record({ message: { role: 'assistant', content: null, tool_calls: [call] }, prefixFingerprint: '', provider: 'gemini', model: 'g', createdAt: 1, callMeta: { call_gem1: { thoughtSignature: 'SIG' } } });
  await ledger.record({ message: { role: 'assistant', content: null, tool_calls: [call] }, prefixFingerprint: 'fp1', provider: 'gemini', model: 'g', createdAt: 2 });
  const snapshot = await ledger.lookup({ callIds: ['call_gem1'], prefixFingerprints: ['fp1', ''] });
  t.same(snapshot.byCallId.get('call_gem1')?.callMeta, { call_gem1: { thoughtSignature: 'SIG' } });
  t.equal(snapshot.byPrefix.get('fp1')?.createdAt, 2, 'the pipeline message is the one kept');
  t.notOk(snapshot.byPrefix.has(''), 'adapter-only entries are not indexed by an empty fingerprint');
  // an adapter record after the pipeline one merges into it
  await ledger.record({ message: { role: 'assistant', content: null, tool_calls: [call] }, prefixFingerprint: '', provider: 'gemini', model: 'g', createdAt: 3, callMeta: { call_gem1: { upstreamId: 'u1' } } });
  const again = await ledger.lookup({ callIds: ['call_gem1'], prefixFingerprints: ['fp1'] });
  t.same(again.byCallId.get('call_gem1')?.callMeta, { call_gem1: { thoughtSignature: 'SIG', upstreamId: 'u1' } });
  t.equal(again.byPrefix.get('fp1')?.createdAt, 2);
});

t.test('bytes held: each entry\'s ring bytes (4 per head field, then its text in UTF-8, or UTF-16LE with a lone surrogate) plus its slot (64) plus 28 per head field (the figure /metrics reports)', async (t) => {
  const { storeEntry } = await import('../../src/ledger/stored-entry.js');
  const { LEDGER_KEY_BYTES, LEDGER_SLOT_BYTES } = await import('../../src/ledger/memory.js');
  t.equal(LEDGER_SLOT_BYTES, 64);
  t.equal(LEDGER_KEY_BYTES, 28);
  const base = new MemoryLedger();
  const tenant = base.forScope('tenant-1');
  const cases: Array<{ ledger: typeof base | typeof tenant; scope: string; entry: LedgerEntry; utf16?: true }> = [
    { ledger: base, scope: '', entry: entry('fp-latin', 'call_a', 'call_b') },
    { ledger: base, scope: '', entry: entry('fp-two-byte', 'звонок_1') },
    { ledger: base, scope: '', entry: entry('', 'call_only_id') },
    { ledger: base, scope: '', entry: entry('fp-dup', 'call_dup', 'call_dup') },
    { ledger: tenant, scope: 'tenant-1', entry: entry('fp-tenant-é', 'call_t') },
    // A lone surrogate raw in a plain head: the text is kept as UTF-16LE (UTF-8 cannot hold it);
    // in a JSON head it is escaped, so UTF-8 again.
    { ledger: base, scope: '', entry: entry('fp-lone', 'call_\ud800'), utf16: true },
    { ledger: base, scope: '', entry: entry('fp-json-head', 'call\n\ud800') },
  ];
  let expected = 0;
  for (const { ledger, scope, entry: recorded, utf16 } of cases) {
    const ids = [...new Set((recorded.message.tool_calls ?? []).map((call) => call.id))];
    const text = storeEntry(recorded, scope, ids);
    const fields = 1 + ids.length;
    expected += fields * 4 + (utf16 ? text.length * 2 : Buffer.byteLength(text, 'utf8')) + 64 + 28 * fields;
    await ledger.record(recorded);
    t.equal(base.stats().bytes, expected, `after ${recorded.prefixFingerprint || 'no prefix'}`);
  }
  t.equal(base.stats().entries, cases.length);
});

t.test('an index key recorded again points at the newer entry; an entry left without keys goes', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entry('fp1', 'a'));
  await ledger.record(entry('fp1', 'b'));
  let snap = await ledger.lookup({ callIds: ['a', 'b'], prefixFingerprints: ['fp1'] });
  t.equal(snap.byPrefix.get('fp1'), snap.byCallId.get('b'), 'the prefix moved to the newer entry');
  t.ok(snap.byCallId.get('a'), 'the older entry is still found by its call id');
  t.equal(ledger.size, 2);
  await ledger.record(entry('fp2', 'a'));
  snap = await ledger.lookup({ callIds: ['a'], prefixFingerprints: ['fp2'] });
  t.equal(snap.byCallId.get('a'), snap.byPrefix.get('fp2'), 'the call id moved too');
  t.equal(ledger.size, 2, 'the first entry, left with no key, was removed');
  await ledger.record({ ...entry('', 'b'), callMeta: { b: { sig: 'x' } } });
  snap = await ledger.lookup({ callIds: ['b'], prefixFingerprints: ['fp1'] });
  t.same(snap.byCallId.get('b')!.callMeta, { b: { sig: 'x' } }, 'metadata without a prefix merges into the entry the call id points at');
  t.equal(snap.byPrefix.get('fp1'), snap.byCallId.get('b'), 'which keeps its prefix key');
});

// Most requests find nothing: the lookup hands back the one shared empty snapshot (no two maps per request).
t.test('a lookup that finds nothing builds no maps', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entry('fp1', 'a'));
  t.equal(await ledger.lookup({ callIds: ['zz'], prefixFingerprints: ['nope'] }), EMPTY_SNAPSHOT);
  t.equal(await ledger.lookup({ callIds: [], prefixFingerprints: [] }), EMPTY_SNAPSHOT);
  const found = await ledger.lookup({ callIds: ['a'], prefixFingerprints: ['nope'] });
  t.equal(found.byCallId.size, 1);
  t.equal(found.byPrefix.size, 0);
  t.equal(EMPTY_SNAPSHOT.byCallId.size + EMPTY_SNAPSHOT.byPrefix.size, 0, 'the shared maps stay empty');
});
