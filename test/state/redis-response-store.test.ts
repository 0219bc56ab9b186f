import t, { type Test } from 'tap';

type Tap = Test;
import { createMemoryResponseStore, type ResponseStore, type StoredResponse } from '../../src/state/response-store.js';
import type { Item, ResponseObject } from '../../src/api/responses-types.js';
import { closeRedis, createRedisClient, waitReady } from '../../src/state/redis-client.js';
import { RedisResponseStore } from '../../src/state/redis-response-store.js';
import { startRedis } from '../helpers/redis-server.js';

// One contract for both ResponseStore implementations (memory and Redis), plus Redis-only TTL.

const silent = { warn: () => undefined, info: () => undefined } as any;

function record(id: string, output: Item[], input: Item[] = [], previousResponseId?: string): StoredResponse {
  return { response: { id, object: 'response', output } as unknown as ResponseObject, input, ...(previousResponseId ? { previousResponseId } : {}) };
}
const fc = (n: number): Item => ({ id: `fc_${n}`, type: 'function_call', call_id: `call_${n}`, name: 'f', arguments: '{}' });
const msg = (id: string, text: string): Item => ({ id, type: 'message', role: 'user', content: text });

function contract(t: Tap, name: string, make: () => ResponseStore): void {
  t.test(`${name}: put / get / items / calls, copies`, async (t) => {
    const store = make();
    const input = [msg('msg_in', 'hi')];
    await store.put(record('resp_1', [fc(1)], input, 'resp_0'));
    input[0].content = 'changed after put';
    const got = await store.get('resp_1');
    t.equal(got?.input[0].content, 'hi', 'the store keeps its own copy');
    t.equal(got?.previousResponseId, 'resp_0');
    if (got) got.response.output.length = 0;
    t.equal((await store.get('resp_1'))?.response.output.length, 1, 'and hands out copies');
    const items = await store.getItems(['fc_1', 'msg_in', 'nope']);
    t.same([...items.keys()], ['fc_1', 'msg_in'], 'input and output items by id');
    t.same(items.get('fc_1'), fc(1));
    t.same([...(await store.findCallResponses(['call_1', 'call_x']))], [['call_1', 'resp_1']]);
    t.equal(await store.get('resp_none'), undefined);
    t.same([...(await store.getItems([])).keys()], []);
  });

  t.test(`${name}: an echoed input item keeps its first owner; delete removes only what it owns`, async (t) => {
    const store = make();
    await store.put(record('resp_a1', [fc(11)], [msg('msg_a', 'a')]));
    await store.put(record('resp_a2', [fc(12)], [msg('msg_a', 'a'), fc(11)], 'resp_a1'));
    t.equal(await store.delete('resp_a2'), true);
    t.same([...(await store.getItems(['msg_a', 'fc_11', 'fc_12'])).keys()], ['msg_a', 'fc_11'], "resp_a1's items survive deleting resp_a2");
    t.same([...(await store.findCallResponses(['call_11', 'call_12'])).keys()], ['call_11']);
    t.equal(await store.delete('resp_a2'), false, 'deleting twice: not found');
    t.equal(await store.get('resp_a2'), undefined);
  });

  t.test(`${name}: a response's chain of ids comes back with get, not with getMany (a chain's records without every link's chain)`, async (t) => {
    const store = make();
    await store.put(record('resp_c0', [fc(20)]));
    await store.put({ ...record('resp_c1', [fc(21)], [], 'resp_c0'), chain: ['resp_c0'] });
    await store.put({ ...record('resp_c2', [fc(22)], [], 'resp_c1'), chain: ['resp_c0', 'resp_c1'] });
    t.same((await store.get('resp_c2'))?.chain, ['resp_c0', 'resp_c1']);
    const many = await store.getMany(['resp_c0', 'resp_c1', 'resp_nope']);
    t.same([...many.keys()], ['resp_c0', 'resp_c1'], 'unknown ids absent');
    t.equal(many.get('resp_c1')?.chain, undefined, 'no chain list per link');
    t.equal(many.get('resp_c1')?.previousResponseId, 'resp_c0');
    t.equal(await store.delete('resp_c2'), true);
    t.equal(await store.get('resp_c2'), undefined);
    await store.put(record('resp_c2', [fc(22)]));
    t.equal((await store.get('resp_c2'))?.chain, undefined, 'a deleted chain does not come back with a new record of the same id');
  });
}

contract(t, 'memory', () => createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100 }));

t.test('redis', async (t) => {
  const redis = await startRedis();
  const client = createRedisClient({ type: 'redis', url: redis.url, keyPrefix: 'rs:', connectTimeoutMs: 2000, commandTimeoutMs: 2000, limitsFailMode: 'open' }, silent);
  t.teardown(async () => {
    await closeRedis(client);
    await redis.close();
  });
  t.ok(await waitReady(client, 2000));
  let n = 0;
  contract(t, 'redis', () => new RedisResponseStore(client, { prefix: `rs${++n}:`, ttlMs: 60_000 }));

  t.test('redis: everything expires with the TTL', async (t) => {
    // Long enough for the write and the read before it on a loaded machine; waited out in full.
    const store = new RedisResponseStore(client, { prefix: 'ttl:', ttlMs: 1000 });
    await store.put(record('resp_t', [fc(7)], [msg('msg_t', 't')]));
    t.ok(await store.get('resp_t'));
    await new Promise((r) => setTimeout(r, 1100));
    t.equal(await store.get('resp_t'), undefined);
    t.equal((await store.getItems(['fc_7', 'msg_t'])).size, 0);
    t.equal((await store.findCallResponses(['call_7'])).size, 0);
    t.same(await client.keys('ttl:*'), []);
  });
});
