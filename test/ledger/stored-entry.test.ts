import t from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { readEntry, readHead, storeEntry } from '../../src/ledger/stored-entry.js';
import type { LedgerEntry } from '../../src/ledger/types.js';

// The memory ledger keeps each entry as one string (stored-entry.ts) and parses it back on a hit:
// what comes back must be exactly what was recorded, whatever the text holds, and the byte budget
// must count the string as it really is (two bytes a character once one is above Latin-1).

function entryWith(args: string, id = 'call_1', content: string | null = null, fp = 'fp'): LedgerEntry {
  return {
    message: { role: 'assistant', content, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: args } }] },
    prefixFingerprint: fp,
    provider: 'p',
    model: 'm',
    createdAt: 1_700_000_000_123,
  };
}

const AWKWARD = [
  'plain ascii',
  'émigré café (Latin-1)',
  'погода в Париже 東京 🌦️ (two-byte, astral)',
  'a lone surrogate \ud800 and its mate \udc00',
  'line\nfeed, carriage\rreturn, tab\t, NUL \u0000, LS \u2028 PS \u2029',
  'unit separator \u001f (what joins a plain head) and \u001f\u001f twice',
  'quotes " and \\ backslashes \\" and JSON-looking text {"a":[1,2]}\n]',
];

t.test('a message comes back exactly as recorded, whatever its text holds', async (t) => {
  for (const [at, text] of AWKWARD.entries()) {
    const ledger = new MemoryLedger();
    const recorded = entryWith(JSON.stringify({ city: text }), `call_${text}`, text, `fp ${text}`);
    recorded.callMeta = { [`call_${text}`]: { thoughtSignature: text } };
    await ledger.record(recorded);
    const snapshot = await ledger.lookup({ callIds: [`call_${text}`], prefixFingerprints: [`fp ${text}`] });
    t.same(snapshot.byCallId.get(`call_${text}`), recorded, `text ${at}`);
    t.equal(snapshot.byPrefix.get(`fp ${text}`), snapshot.byCallId.get(`call_${text}`), 'one object behind both indexes');
  }
});

t.test('the stored text: the head holds the scope, the fingerprint and the distinct call ids', async (t) => {
  const recorded = entryWith('{}', 'id\nwith\nfeeds', 'content\nwith\nfeeds', 'fp\n1');
  const text = storeEntry(recorded, 'tenant-1', ['id\nwith\nfeeds']);
  t.same(readHead(text), ['tenant-1', 'fp\n1', 'id\nwith\nfeeds']);
  t.same(readEntry(text), recorded);
  t.equal(text.split('\n').length, 2, 'one raw line feed: the end of the head');
  // Usual ids: the head is the fields joined (no JSON); any field holding the separator: JSON.
  const plain = storeEntry(entryWith('{}', 'call_1'), 'tenant-1', ['call_1', 'call_2']);
  t.same(readHead(plain), ['tenant-1', 'fp', 'call_1', 'call_2']);
  const separated = storeEntry(entryWith('{}', 'a\u001fb'), 'tenant-1', ['a\u001fb']);
  t.same(readHead(separated), ['tenant-1', 'fp', 'a\u001fb']);
  t.same(readHead(storeEntry(entryWith('{}', 'c', null, ''), 's', ['c'])), ['s', '', 'c'], 'no fingerprint: an empty field');
});

t.test('large arguments round-trip and count at least their characters', async (t) => {
  const ledger = new MemoryLedger();
  const big = JSON.stringify({ blob: 'x'.repeat(200_000), text: 'ж'.repeat(50_000) });
  await ledger.record(entryWith(big));
  const found = (await ledger.lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.get('call_1');
  t.equal(found?.message.tool_calls?.[0].function.arguments, big);
  // Held as UTF-8 in the ring: at least the text's UTF-8 bytes (checked before any lookup re-appends it).
  const fresh = new MemoryLedger();
  await fresh.record(entryWith(big));
  t.ok(fresh.stats().bytes! >= Buffer.byteLength(big, 'utf8'), `counted ${fresh.stats().bytes} for ${Buffer.byteLength(big, 'utf8')} UTF-8 bytes`);
});

t.test('the byte budget bounds the store: two-byte entries count two bytes a character', async (t) => {
  const ledger = new MemoryLedger({ maxBytes: 100_000 });
  const args = JSON.stringify({ text: 'я'.repeat(10_000) }); // >= 20,000 bytes stored, whatever the layout
  for (let i = 0; i < 50; i++) await ledger.record(entryWith(args, `call_${i}`, null, `fp${i}`));
  t.ok(ledger.size <= 4, `${ledger.size} entries of >= 20,000 bytes in a 100,000-byte budget`);
  t.ok(ledger.size >= 1);
  t.ok(ledger.stats().bytes! <= 100_000);
  t.ok(ledger.stats().bytes! >= ledger.size * 20_000, 'each entry counted at least its characters');
  const snapshot = await ledger.lookup({ callIds: ['call_0', 'call_49'], prefixFingerprints: [] });
  t.same([...snapshot.byCallId.keys()], ['call_49'], 'the oldest went first');
});

t.test('an entry over maxEntryBytes is not stored, and is counted', async (t) => {
  const told: number[] = [];
  const ledger = new MemoryLedger({ maxEntryBytes: 5_000, onOversize: (bytes) => told.push(bytes) });
  await ledger.record(entryWith(JSON.stringify({ text: 'a'.repeat(6_000) })));
  await ledger.record(entryWith('{}', 'call_small'));
  t.equal(ledger.size, 1);
  t.equal(ledger.stats().rejected, 1);
  t.ok(told[0] > 6_000);
  t.equal((await ledger.lookup({ callIds: ['call_1'], prefixFingerprints: ['fp'] })).byCallId.size, 0);
});

t.test('a lookup hands back copies: changing one changes nothing stored', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entryWith('{"city":"Paris"}'));
  const first = (await ledger.lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.get('call_1')!;
  first.message.tool_calls![0].function.arguments = '{"city":"Rome"}';
  first.callMeta = { call_1: { x: 'y' } };
  const again = (await ledger.lookup({ callIds: ['call_1'], prefixFingerprints: [] })).byCallId.get('call_1')!;
  t.equal(again.message.tool_calls![0].function.arguments, '{"city":"Paris"}');
  t.equal(again.callMeta, undefined);
});

t.test('callMeta merged after a hit: the next lookup sees it, the entry keeps its prefix and size is re-counted', async (t) => {
  const ledger = new MemoryLedger();
  await ledger.record(entryWith('{}', 'call_g', null, 'fp-g'));
  const before = ledger.stats().bytes!;
  const hit = (await ledger.lookup({ callIds: ['call_g'], prefixFingerprints: ['fp-g'] })).byCallId.get('call_g')!;
  t.equal(hit.callMeta, undefined);
  await ledger.record({ ...entryWith('{}', 'call_g', null, ''), callMeta: { call_g: { thoughtSignature: 'SIG' } } });
  await ledger.record({ ...entryWith('{}', 'call_g', null, ''), callMeta: { call_g: { upstreamId: 'u1' } } });
  const after = await ledger.lookup({ callIds: ['call_g'], prefixFingerprints: ['fp-g'] });
  t.same(after.byCallId.get('call_g')!.callMeta, { call_g: { thoughtSignature: 'SIG', upstreamId: 'u1' } });
  t.equal(after.byPrefix.get('fp-g'), after.byCallId.get('call_g'));
  t.equal(hit.callMeta, undefined, 'the object handed out before is not changed');
  t.equal(ledger.size, 1);
  t.ok(ledger.stats().bytes! > before, 'the merged entry is counted larger');
  // and it still leaves both indexes when it goes
  await ledger.close();
  t.equal((await ledger.lookup({ callIds: ['call_g'], prefixFingerprints: ['fp-g'] })).byCallId.size, 0);
});

t.test('scoped keys: an anonymous id holding NUL never meets a key scope\'s id', async (t) => {
  const ledger = new MemoryLedger();
  const tenant = ledger.forScope('a');
  await ledger.record(entryWith('{}', 'a\u0000b', null, ''));
  await tenant.record(entryWith('{"t":1}', 'b', null, ''));
  t.equal((await ledger.lookup({ callIds: ['a\u0000b', 'b'], prefixFingerprints: [] })).byCallId.size, 1);
  t.equal((await tenant.lookup({ callIds: ['a\u0000b', 'b'], prefixFingerprints: [] })).byCallId.get('b')?.message.tool_calls?.[0].function.arguments, '{"t":1}');
  t.equal((await tenant.lookup({ callIds: ['a\u0000b'], prefixFingerprints: [] })).byCallId.size, 0);
});

t.test('eviction leaves the indexes: a full ledger keeps finding its newest entries only', async (t) => {
  const ledger = new MemoryLedger({ maxEntries: 50 });
  for (let i = 0; i < 500; i++) await ledger.record(entryWith('{}', `call_${i}`, null, i % 2 === 0 ? 'same-conversation' : `fp${i}`));
  t.equal(ledger.size, 50);
  const ids = Array.from({ length: 500 }, (_, i) => `call_${i}`);
  const snapshot = await ledger.lookup({ callIds: ids, prefixFingerprints: ['same-conversation', 'fp1', 'fp499'] });
  t.same([...snapshot.byCallId.keys()], ids.slice(450));
  t.same([...snapshot.byPrefix.keys()], ['same-conversation', 'fp499']);
  t.equal(snapshot.byPrefix.get('same-conversation')?.message.tool_calls?.[0].id, 'call_498');
});

t.test('a call id already stored: its callMeta is read without parsing a body when it has none', async (t) => {
  // Upstreams that repeat call ids across answers (fixed ids, `functions.name:0`) record over an
  // existing entry on every answer; only an entry that holds callMeta needs its body parsed.
  const ledger = new MemoryLedger();
  await ledger.record(entryWith('{"city":"Paris"}', 'call_same', null, 'fp-1'));
  const parsed: string[] = [];
  const original = JSON.parse;
  JSON.parse = ((text: string, reviver?: Parameters<typeof JSON.parse>[1]) => {
    parsed.push(text);
    return original(text, reviver) as unknown;
  }) as typeof JSON.parse;
  try {
    await ledger.record(entryWith('{"city":"Rome"}', 'call_same', null, 'fp-2'));
  } finally {
    JSON.parse = original;
  }
  t.same(parsed.filter((text) => text.includes('"message"')), [], 'no stored body parsed');
  const found = await ledger.lookup({ callIds: ['call_same'], prefixFingerprints: [] });
  t.equal(found.byCallId.get('call_same')?.message.tool_calls?.[0].function.arguments, '{"city":"Rome"}');

  // With callMeta stored, the next record under the same id still merges it.
  await ledger.record({ ...entryWith('{"city":"Rome"}', 'call_same', null, ''), callMeta: { call_same: { signature: 's1' } } });
  await ledger.record(entryWith('{"city":"Oslo"}', 'call_same', null, 'fp-3'));
  const merged = await ledger.lookup({ callIds: ['call_same'], prefixFingerprints: [] });
  t.same(merged.byCallId.get('call_same')?.callMeta, { call_same: { signature: 's1' } });
  t.equal(merged.byCallId.get('call_same')?.message.tool_calls?.[0].function.arguments, '{"city":"Oslo"}');
});
