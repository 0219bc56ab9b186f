import t from 'tap';
import { callHash, prefixHash } from '../../src/ledger/key-index.js';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { ledgerEntry } from '../helpers/ledger-entry.js';

// The ring ledger's particulars: keys are 32-bit hashes verified against the stored head (so real
// collisions must stay exact and scope-safe), the ring is allocated at the first record, a hit
// counts as use, text of any kind comes back exactly after the ring has wrapped many times.

const entry = (fp: string, ids: string[], args = '{}'): LedgerEntry => ledgerEntry(fp, ids, { args, createdAt: 7 });

/** Two different ids whose keys hash alike (birthday search over `make(i)`). */
function collision(hash: (id: string) => number, make: (i: number) => string): [string, string] {
  const seen = new Map<number, string>();
  for (let i = 0; ; i++) {
    const id = make(i);
    const other = seen.get(hash(id));
    if (other !== undefined) return [other, id];
    seen.set(hash(id), id);
  }
}

t.test('call ids whose keys share a hash: each finds its own entry, never the other', async (t) => {
  const [a, b] = collision((id) => callHash('', id), (i) => `call_${i}`);
  t.not(a, b);
  const ledger = new MemoryLedger();
  await ledger.record(entry('', [a], '{"who":"a"}'));
  t.equal((await ledger.lookup({ callIds: [b], prefixFingerprints: [] })).byCallId.size, 0, 'b was never recorded');
  await ledger.record(entry('', [b], '{"who":"b"}'));
  const found = await ledger.lookup({ callIds: [a, b], prefixFingerprints: [] });
  t.equal(found.byCallId.get(a)?.message.tool_calls?.[0].function.arguments, '{"who":"a"}');
  t.equal(found.byCallId.get(b)?.message.tool_calls?.[0].function.arguments, '{"who":"b"}');
  t.equal(ledger.size, 2, 'recording b did not take a key of a');
  // One entry holding both: each key is its own field.
  await ledger.record(entry('fp', [b, a], '{"who":"both"}'));
  t.equal(ledger.size, 1, 'both older entries lost their only key');
  await ledger.record(entry('fp2', [a], '{"who":"a again"}'));
  const after = await ledger.lookup({ callIds: [a, b], prefixFingerprints: ['fp'] });
  t.equal(after.byCallId.get(a)?.message.tool_calls?.[0].function.arguments, '{"who":"a again"}');
  t.equal(after.byCallId.get(b)?.message.tool_calls?.[0].function.arguments, '{"who":"both"}', 'b still points at the entry a left');
});

t.test('a key in one scope hashing like another scope\'s: the scopes never see each other', async (t) => {
  // A call id of tenant-a and one of tenant-b whose scoped keys hash alike.
  const seenA = new Map<number, string>();
  const seenB = new Map<number, string>();
  let idA = '';
  let idB = '';
  for (let i = 0; idA === ''; i++) {
    const hashA = callHash('tenant-a', `a${i}`);
    const hashB = callHash('tenant-b', `b${i}`);
    seenA.set(hashA, `a${i}`);
    seenB.set(hashB, `b${i}`);
    if (seenB.has(hashA)) [idA, idB] = [`a${i}`, seenB.get(hashA)!];
    else if (seenA.has(hashB)) [idA, idB] = [seenA.get(hashB)!, `b${i}`];
  }
  t.equal(callHash('tenant-a', idA), callHash('tenant-b', idB), 'a cross-scope collision');
  const [scopeA, scopeB] = ['tenant-a', 'tenant-b'];
  const base = new MemoryLedger();
  await base.forScope(scopeA).record(entry('', [idA]));
  t.equal((await base.forScope(scopeB).lookup({ callIds: [idB, idA], prefixFingerprints: [] })).byCallId.size, 0);
  await base.forScope(scopeB).record(entry('', [idB], '{"scope":"b"}'));
  t.equal((await base.forScope(scopeA).lookup({ callIds: [idA], prefixFingerprints: [] })).byCallId.get(idA)?.message.tool_calls?.[0].function.arguments, '{}');
  t.equal(base.size, 2);
  // and prefix fingerprints: the same fingerprint in two scopes
  const [fa, fb] = collision((fp) => prefixHash('', fp), (i) => `fp_${i}`);
  await base.record(entry(fa, ['c1']));
  t.equal((await base.lookup({ callIds: [], prefixFingerprints: [fb] })).byPrefix.size, 0);
  t.equal((await base.lookup({ callIds: [], prefixFingerprints: [fa] })).byPrefix.size, 1);
});

t.test('the same call id in two scopes whose keys hash alike: each scope finds only its own', async (t) => {
  const [scopeA, scopeB] = collision((scope) => callHash(scope, 'call_1'), (i) => `scope-${i}`);
  const base = new MemoryLedger();
  await base.forScope(scopeA).record(entry('', ['call_1'], '{"scope":"a"}'));
  t.equal((await base.forScope(scopeB).lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.size, 0, 'b sees nothing of a');
  await base.forScope(scopeB).record(entry('', ['call_1'], '{"scope":"b"}'));
  t.equal(base.size, 2, "b's record did not take a's key");
  const seen = async (scope: string) => (await base.forScope(scope).lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.get('call_1')?.message.tool_calls?.[0].function.arguments;
  t.equal(await seen(scopeA), '{"scope":"a"}');
  t.equal(await seen(scopeB), '{"scope":"b"}');
});

t.test('the same ids in two scopes: re-pointing or evicting one scope\'s keys leaves the other\'s', async (t) => {
  const base = new MemoryLedger({ maxEntries: 4 });
  const alpha = base.forScope('alpha');
  const beta = base.forScope('beta');
  await alpha.record(entry('fp', ['call_1'], '{"scope":"alpha"}'));
  await beta.record(entry('fp', ['call_1'], '{"scope":"beta"}'));
  await alpha.record(entry('fp', ['call_1'], '{"scope":"alpha 2"}')); // alpha's first goes (no key left)
  t.equal(base.size, 2);
  for (let i = 0; i < 3; i++) await alpha.record(entry(`fp${i}`, [`other_${i}`]));
  // beta's entry is now the oldest and was evicted; alpha's newest remains
  t.equal((await beta.lookup({ callIds: ['call_1'], prefixFingerprints: ['fp'] })).byCallId.size, 0);
  const found = await alpha.lookup({ callIds: ['call_1'], prefixFingerprints: ['fp'] });
  t.equal(found.byCallId.get('call_1')?.message.tool_calls?.[0].function.arguments, '{"scope":"alpha 2"}');
  t.equal(found.byPrefix.get('fp'), found.byCallId.get('call_1'));
});

t.test('a hit counts as use: the entry found outlives entries recorded after it', async (t) => {
  const ledger = new MemoryLedger({ maxEntries: 3 });
  for (const id of ['a', 'b', 'c']) await ledger.record(entry(`fp_${id}`, [id]));
  t.equal((await ledger.lookup({ callIds: ['a'], prefixFingerprints: [] })).byCallId.size, 1);
  await ledger.record(entry('fp_d', ['d']));
  const found = await ledger.lookup({ callIds: ['a', 'b', 'c', 'd'], prefixFingerprints: ['fp_a'] });
  t.same([...found.byCallId.keys()], ['a', 'c', 'd'], 'b, the least recently used, went');
  t.equal(found.byPrefix.get('fp_a'), found.byCallId.get('a'));
});

t.test('any text round-trips after the ring wrapped many times, in a tenant scope', async (t) => {
  const texts = ['émigré', 'погода 東京 🌦️', 'lone \ud800 high', 'lone \udc00 low', 'feed\nUS\u001f', 'NUL \u0000'];
  const ledger = new MemoryLedger({ maxBytes: 8_000 }).forScope('tenant-1');
  const recorded: LedgerEntry[] = [];
  for (let i = 0; i < 400; i++) {
    const text = texts[i % texts.length];
    const e = entry(`fp ${text} ${i}`, [`call ${text} ${i}`], JSON.stringify({ text, pad: 'ж'.repeat(i % 50) }));
    e.message.content = `${text} ${i}`;
    e.createdAt = i;
    e.callMeta = { [`call ${text} ${i}`]: { sig: text } };
    recorded.push(e);
    await ledger.record(e);
  }
  const stats = (ledger as MemoryLedger).stats();
  t.ok(stats.bytes! <= 8_000);
  t.ok(stats.entries! >= 5 && stats.entries! < 100, `${stats.entries} entries kept`);
  const newest = recorded.slice(-stats.entries!);
  for (const e of newest) {
    const callId = e.message.tool_calls![0].id;
    const found = await ledger.lookup({ callIds: [callId], prefixFingerprints: [e.prefixFingerprint] });
    t.same(found.byCallId.get(callId), e, `entry ${e.createdAt}`);
    t.equal(found.byPrefix.get(e.prefixFingerprint), found.byCallId.get(callId));
  }
});

t.test('an entry the whole budget cannot hold is refused, whatever maxEntryBytes says', async (t) => {
  const told: number[] = [];
  const ledger = new MemoryLedger({ maxBytes: 2_000, maxEntryBytes: 1_000_000, onOversize: (bytes) => told.push(bytes) });
  await ledger.record(entry('fp', ['small']));
  await ledger.record(entry('fp-big', ['big'], JSON.stringify({ x: 'x'.repeat(3_000) })));
  t.equal(ledger.stats().rejected, 1);
  t.ok(told[0] > 3_000);
  t.equal((await ledger.lookup({ callIds: ['small', 'big'], prefixFingerprints: [] })).byCallId.size, 1, 'the small one stays');
});

t.test('idle: the ring is allocated at the first record, not before', async (t) => {
  const before = process.memoryUsage().arrayBuffers;
  const ledgers = Array.from({ length: 8 }, () => new MemoryLedger({ maxBytes: 64 * 1024 * 1024 }));
  t.ok(process.memoryUsage().arrayBuffers - before < 4 * 1024 * 1024, 'eight 64 MiB ledgers hold well under 4 MiB');
  await ledgers[0].record(entry('fp', ['a']));
  t.ok(process.memoryUsage().arrayBuffers - before < 4 * 1024 * 1024, 'one record allocates a small ring');
  t.equal(ledgers.length, 8);
});
