import t from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { LedgerEntry } from '../../src/ledger/types.js';
import { createMemoryResponseStore, type StoredResponse } from '../../src/state/response-store.js';
import type { Item, ResponseObject } from '../../src/api/responses-types.js';
import { approxBytes } from '../../src/util/budget.js';
import { scopeOf } from '../../src/util/scope.js';

// Memory bounded by bytes (issue 14 §5): the Responses store and the call ledger stay under their
// byte budget by their own accounting, whatever the entry sizes; an entry over the per-entry cap
// is not stored and is reported; index entries leave with their response.

const KB = 1024;
const MB = 1024 * KB;

function record(id: string, output: Item[], input: Item[] = []): StoredResponse {
  return { response: { id, object: 'response', output } as unknown as ResponseObject, input };
}
const fc = (n: number): Item => ({ id: `fc_${n}`, type: 'function_call', call_id: `call_${n}`, name: 'f', arguments: '{}' });
const big = (id: string, bytes: number): Item => ({ id, type: 'message', role: 'user', content: 'x'.repeat(bytes) });
function answer(n: number, argumentBytes: number): LedgerEntry {
  const args = JSON.stringify({ blob: 'y'.repeat(argumentBytes) });
  return { message: { role: 'assistant', content: null, tool_calls: [{ id: `call_${n}`, type: 'function', function: { name: 'f', arguments: args } }] }, prefixFingerprint: `fp_${n}`, provider: 'p', model: 'm', createdAt: n };
}

t.test('approxBytes: string payloads by V8 width, any depth, linear', async (t) => {
  t.ok(approxBytes('a'.repeat(100_000)) >= 100_000 && approxBytes('a'.repeat(100_000)) < 100_100, 'Latin-1: one byte per character');
  t.ok(approxBytes('é'.repeat(1000)) < 1100, 'é is Latin-1 too');
  t.ok(approxBytes('日'.repeat(1000)) >= 2000, 'beyond Latin-1: two bytes per character');
  let deep: unknown = 'leaf';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  t.ok(approxBytes(deep) > 100_000 * 64, '100,000 nested arrays: no stack overflow, each counted');
  t.ok(approxBytes({ a: [1, 2, { b: 'c' }] }) > approxBytes({ a: [] }));
});

t.test('Responses store: many large responses stay under maxBytes; the oldest go with their items and calls', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100_000, maxBytes: 2 * MB, maxEntryBytes: 1 * MB });
  let peak = 0;
  for (let n = 0; n < 200; n++) {
    const scoped = store.forScope(scopeOf(n % 2 === 0 ? 'alpha' : 'beta'));
    await scoped.put(record(`resp_${n}`, [fc(n)], [big(`msg_${n}`, 100 * KB)]));
    peak = Math.max(peak, store.stats!().bytes!);
  }
  const stats = store.stats!();
  t.ok(peak <= 2 * MB, `never above the budget (peak ${peak} bytes)`);
  t.ok(stats.bytes! > 1.5 * MB, `and uses it (${stats.bytes} bytes)`);
  t.ok(stats.entries! >= 15 && stats.entries! <= 20, `~100 KB each: ${stats.entries} of 200 kept`);
  t.equal(stats.maxBytes, 2 * MB);
  const beta = store.forScope(scopeOf('beta'));
  t.ok(await beta.get('resp_199'), 'the newest is kept');
  t.equal(await store.forScope(scopeOf('alpha')).get('resp_0'), undefined, 'the oldest is gone');
  t.equal((await store.forScope(scopeOf('alpha')).getItems(['msg_0', 'fc_0'])).size, 0, 'with its items');
  t.equal((await store.forScope(scopeOf('alpha')).findCallResponses(['call_0'])).size, 0, 'and its calls');
});

t.test('Responses store: a response over maxEntryBytes is not stored, and is reported', async (t) => {
  const told: Array<[number, number]> = [];
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100, maxBytes: 4 * MB, maxEntryBytes: 1 * MB, onOversize: (bytes, limit) => told.push([bytes, limit]) });
  await store.put(record('resp_ok', [fc(1)], [big('msg_ok', 500 * KB)]));
  await store.put(record('resp_huge', [fc(2)], [big('msg_huge', 2 * MB)]));
  t.ok(await store.get('resp_ok'));
  t.equal(await store.get('resp_huge'), undefined, 'not stored');
  t.equal((await store.getItems(['msg_huge'])).size, 0, 'nor indexed');
  t.equal(store.stats!().rejected, 1);
  t.equal(told.length, 1);
  t.ok(told[0][0] > 2 * MB && told[0][1] === MB);
  t.ok(store.stats!().bytes! < MB, 'the budget holds only the small one');
});

t.test('call ledger: many answers with large arguments stay under maxBytes', async (t) => {
  const ledger = new MemoryLedger({ ttlMs: 60_000, maxEntries: 100_000, maxBytes: 1 * MB, maxEntryBytes: 512 * KB });
  let peak = 0;
  for (let n = 0; n < 300; n++) {
    await ledger.forScope(scopeOf(n % 3 === 0 ? 'alpha' : 'beta')).record(answer(n, 50 * KB));
    peak = Math.max(peak, ledger.stats().bytes!);
  }
  const stats = ledger.stats();
  t.ok(peak <= MB, `never above the budget (peak ${peak} bytes)`);
  t.ok(stats.entries! >= 15 && stats.entries! <= 21, `~50 KB each: ${stats.entries} of 300 kept`);
  const newest = await ledger.forScope(scopeOf('beta')).lookup({ callIds: ['call_299'], prefixFingerprints: ['fp_299'] });
  t.equal(newest.byCallId.size + newest.byPrefix.size, 2, 'the newest is found by call id and prefix');
  const oldest = await ledger.forScope(scopeOf('beta')).lookup({ callIds: ['call_1'], prefixFingerprints: ['fp_1'] });
  t.equal(oldest.byCallId.size + oldest.byPrefix.size, 0, 'the oldest left both indexes');
});

t.test('call ledger: an answer over maxEntryBytes is not stored, and is reported; call meta merges are re-counted', async (t) => {
  const told: number[] = [];
  const ledger = new MemoryLedger({ ttlMs: 60_000, maxBytes: 4 * MB, maxEntryBytes: 256 * KB, onOversize: (bytes) => told.push(bytes) });
  await ledger.record(answer(1, 300 * KB));
  t.equal((await ledger.lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.size, 0);
  t.equal(ledger.stats().rejected, 1);
  t.equal(told.length, 1);

  await ledger.record(answer(2, 10 * KB));
  const before = ledger.stats().bytes!;
  const meta = { ...answer(2, 10 * KB), prefixFingerprint: '', callMeta: { call_2: { thoughtSignature: 's'.repeat(50 * KB) } } };
  await ledger.record(meta);
  t.ok(ledger.stats().bytes! >= before + 50 * KB, 'a merged signature counts toward the budget');
  const found = await ledger.lookup({ callIds: ['call_2'], prefixFingerprints: ['fp_2'] });
  t.equal(found.byCallId.get('call_2')?.callMeta?.call_2.thoughtSignature.length, 50 * KB);
  t.equal(found.byPrefix.get('fp_2'), found.byCallId.get('call_2'), 'one entry behind both indexes');
});
