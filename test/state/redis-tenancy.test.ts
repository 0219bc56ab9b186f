import t, { type Test } from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import type { CallLedger, LedgerEntry } from '../../src/ledger/types.js';
import { createMemoryResponseStore, type ResponseStore, type StoredResponse } from '../../src/state/response-store.js';
import type { Item, ResponseObject } from '../../src/api/responses-types.js';
import { closeRedis, createRedisClient, waitReady } from '../../src/state/redis-client.js';
import { RedisLedger } from '../../src/state/redis-ledger.js';
import { RedisResponseStore } from '../../src/state/redis-response-store.js';
import { scopeOf } from '../../src/util/scope.js';
import { startRedis } from '../helpers/redis-server.js';

// Store-level tenant scopes (issue 14 §3) for both implementations of both stores, plus the Redis
// per-entry cap and key layout (§5). The end-to-end view is test/responses/tenancy.test.ts.

const silent = { warn: () => undefined, info: () => undefined } as any;
const A = scopeOf('alpha');
const B = scopeOf('beta');

function record(id: string, output: Item[], input: Item[] = []): StoredResponse {
  return { response: { id, object: 'response', output } as unknown as ResponseObject, input };
}
const fc = (n: number, city = 'Oslo'): Item => ({ id: `fc_${n}`, type: 'function_call', call_id: `call_${n}`, name: 'get_weather', arguments: JSON.stringify({ city }) });
const msg = (id: string, text: string): Item => ({ id, type: 'message', role: 'user', content: text });
function entry(fp: string, id: string, city: string): LedgerEntry {
  const call = { id, type: 'function' as const, function: { name: 'get_weather', arguments: JSON.stringify({ city }) } };
  return { message: { role: 'assistant', content: null, tool_calls: [call] }, prefixFingerprint: fp, provider: 'p', model: 'm', createdAt: 1 };
}

function responseScopes(t: Test, name: string, make: () => ResponseStore): void {
  t.test(`${name}: a response, its items and calls are found only in the scope that stored them`, async (t) => {
    const root = make();
    const alpha = root.forScope(A);
    const beta = root.forScope(B);
    await alpha.put(record('resp_a', [fc(1)], [msg('msg_1', 'Weather in Oslo?')]));
    t.ok(await alpha.get('resp_a'));
    t.equal(await beta.get('resp_a'), undefined, 'B: GET finds nothing');
    t.equal(await root.get('resp_a'), undefined, 'nor does the anonymous scope');
    t.equal((await beta.getItems(['msg_1', 'fc_1'])).size, 0, 'B: no items');
    t.equal((await beta.findCallResponses(['call_1'])).size, 0, 'B: no calls');
    t.equal(await beta.delete('resp_a'), false, 'B: DELETE is a not-found');
    t.ok(await alpha.get('resp_a'), 'and deleted nothing');

    // The same client-chosen id in two scopes: two items, first writer of each scope.
    await beta.put(record('resp_b', [fc(2, 'Rome')], [msg('msg_1', 'Weather in Rome?')]));
    t.equal((await alpha.getItems(['msg_1'])).get('msg_1')?.content, 'Weather in Oslo?');
    t.equal((await beta.getItems(['msg_1'])).get('msg_1')?.content, 'Weather in Rome?');
    t.same([...(await alpha.findCallResponses(['call_1', 'call_2']))], [['call_1', 'resp_a']]);
    t.same([...(await beta.findCallResponses(['call_1', 'call_2']))], [['call_2', 'resp_b']]);
    t.equal(await alpha.delete('resp_a'), true);
    t.equal((await beta.getItems(['msg_1'])).get('msg_1')?.content, 'Weather in Rome?', "A's delete leaves B's item");
    t.equal(alpha.forScope(A), alpha, 'forScope of its own scope is the same view');
  });
}

function ledgerScopes(t: Test, name: string, make: () => CallLedger): void {
  t.test(`${name}: ledger entries are found only in the scope that recorded them`, async (t) => {
    const root = make();
    const alpha = root.forScope(A);
    const beta = root.forScope(B);
    await alpha.record(entry('fp_same', 'call_shared', 'Oslo'));
    const byB = await beta.lookup({ callIds: ['call_shared'], prefixFingerprints: ['fp_same'] });
    t.equal(byB.byCallId.size + byB.byPrefix.size, 0, "B finds nothing of A's");
    const byRoot = await root.lookup({ callIds: ['call_shared'], prefixFingerprints: ['fp_same'] });
    t.equal(byRoot.byCallId.size + byRoot.byPrefix.size, 0, 'nor does the anonymous scope');
    await beta.record(entry('fp_same', 'call_shared', 'Rome'));
    const a = await alpha.lookup({ callIds: ['call_shared'], prefixFingerprints: ['fp_same'] });
    const b = await beta.lookup({ callIds: ['call_shared'], prefixFingerprints: ['fp_same'] });
    t.match(a.byCallId.get('call_shared')?.message.tool_calls?.[0].function.arguments, /Oslo/, 'the same call id: each scope its own entry');
    t.match(b.byCallId.get('call_shared')?.message.tool_calls?.[0].function.arguments, /Rome/);
    t.match(a.byPrefix.get('fp_same')?.message.tool_calls?.[0].function.arguments, /Oslo/);
  });
}

responseScopes(t, 'memory', () => createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100 }));
ledgerScopes(t, 'memory', () => new MemoryLedger({ ttlMs: 60_000 }));

t.test('redis', async (t) => {
  const redis = await startRedis();
  const client = createRedisClient({ type: 'redis', url: redis.url, keyPrefix: 'x:', connectTimeoutMs: 2000, commandTimeoutMs: 500, limitsFailMode: 'open' }, silent);
  t.teardown(async () => {
    await closeRedis(client);
    await redis.close();
  });
  t.ok(await waitReady(client, 2000));
  let n = 0;
  responseScopes(t, 'redis', () => new RedisResponseStore(client, { prefix: `rs${++n}:`, ttlMs: 60_000 }));
  ledgerScopes(t, 'redis', () => new RedisLedger(client, { prefix: `rl${++n}:`, ttlMs: 60_000 }));

  t.test('redis key layout: the anonymous scope as before, a key scope under t:<digest>:, never the key name', async (t) => {
    const store = new RedisResponseStore(client, { prefix: 'lay:', ttlMs: 60_000 });
    await store.put(record('resp_anon', [fc(3)]));
    await store.forScope(scopeOf('team-alpha')).put(record('resp_keyed', [fc(4)]));
    await new RedisLedger(client, { prefix: 'lay:', ttlMs: 60_000 }).forScope(scopeOf('team-alpha')).record(entry('fp', 'call_9', 'Oslo'));
    const keys = (await client.keys('lay:*')).sort();
    t.ok(keys.includes('lay:resp:resp_anon'), 'anonymous keys keep the earlier layout');
    t.ok(keys.includes(`lay:t:${scopeOf('team-alpha')}:resp:resp_keyed`));
    t.ok(keys.some((key) => key.startsWith(`lay:t:${scopeOf('team-alpha')}:ledger:c:call_9`)));
    t.notOk(keys.some((key) => key.includes('team-alpha')), 'the key name is not in Redis keys');
    for (const key of keys) t.ok((await client.pttl(key)) > 0, `${key} has a TTL`);
  });

  t.test('redis per-entry cap: an entry over maxEntryBytes is not stored, counted and reported', async (t) => {
    const told: Array<[number, number]> = [];
    const store = new RedisResponseStore(client, { prefix: 'cap:', ttlMs: 60_000, maxEntryBytes: 50_000, onOversize: (bytes, limit) => told.push([bytes, limit]) });
    await store.put(record('resp_small', [fc(5)], [msg('msg_s', 'x'.repeat(10_000))]));
    await store.forScope(A).put(record('resp_big', [fc(6)], [msg('msg_b', 'x'.repeat(60_000))]));
    t.ok(await store.get('resp_small'));
    t.equal(await store.forScope(A).get('resp_big'), undefined, 'the big one is not stored');
    t.same(await client.keys('cap:t:*'), [], 'nothing of it reached Redis');
    t.equal(store.stats().rejected, 1, 'counted once, whatever the scope');
    t.equal(told.length, 1);
    t.ok(told[0][0] > 60_000 && told[0][1] === 50_000, 'told the size and the limit');

    const ledger = new RedisLedger(client, { prefix: 'cap:', ttlMs: 60_000, maxEntryBytes: 50_000 });
    await ledger.record(entry('fp_big', 'call_big', 'x'.repeat(60_000)));
    t.equal((await ledger.lookup({ callIds: ['call_big'], prefixFingerprints: ['fp_big'] })).byCallId.size, 0);
    t.equal(ledger.stats().rejected, 1);
  });
});
