import t from 'tap';
import { createMemoryResponseStore, type StoredResponse } from '../../src/state/response-store.js';
import type { Item, ResponseObject } from '../../src/api/responses-types.js';

// The memory store behind the ResponseStore interface: TTL, size bound, items and calls by id, delete.

function record(id: string, output: Item[], input: Item[] = [], previousResponseId?: string): StoredResponse {
  return { response: { id, object: 'response', output } as unknown as ResponseObject, input, ...(previousResponseId ? { previousResponseId } : {}) };
}
const fc = (n: number): Item => ({ id: `fc_${n}`, type: 'function_call', call_id: `call_${n}`, name: 'f', arguments: '{}' });
const msg = (id: string, text: string): Item => ({ id, type: 'message', role: 'user', content: text });

t.test('put / get / items / calls, deep copies', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 10 });
  const input = [msg('msg_in', 'hi')];
  const stored = record('resp_1', [fc(1)], input);
  await store.put(stored);
  input[0].content = 'changed after put';
  const got = await store.get('resp_1');
  t.equal(got?.input[0].content, 'hi', 'the store keeps its own copy');
  if (got) got.response.output.length = 0;
  t.equal((await store.get('resp_1'))?.response.output.length, 1, 'and hands out copies');
  t.same([...(await store.getItems(['fc_1', 'msg_in', 'nope'])).keys()], ['fc_1', 'msg_in'], 'input and output items by id');
  t.same([...(await store.findCallResponses(['call_1', 'call_x']))], [['call_1', 'resp_1']]);
  t.equal(await store.get('resp_none'), undefined);
});

t.test('an echoed input item keeps its first owner', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 10 });
  await store.put(record('resp_1', [fc(1)], [msg('msg_a', 'a')]));
  await store.put(record('resp_2', [fc(2)], [msg('msg_a', 'a'), fc(1)], 'resp_1'));
  t.equal(await store.delete('resp_2'), true);
  t.same([...(await store.getItems(['msg_a', 'fc_1', 'fc_2'])).keys()], ['msg_a', 'fc_1'], "resp_1's items survive deleting resp_2");
  t.same([...(await store.findCallResponses(['call_1', 'call_2'])).keys()], ['call_1']);
  t.equal(await store.delete('resp_2'), false, 'deleting twice: not found');
});

t.test('TTL and size bound', async (t) => {
  let now = 1_000;
  const store = createMemoryResponseStore({ ttlMs: 500, maxEntries: 2, clock: { now: () => now } });
  await store.put(record('resp_1', [fc(1)]));
  now += 400;
  t.ok(await store.get('resp_1'), 'alive before the TTL');
  now += 200;
  t.equal(await store.get('resp_1'), undefined, 'gone after the TTL');
  t.equal((await store.getItems(['fc_1'])).size, 0, 'its items too');
  t.equal((await store.findCallResponses(['call_1'])).size, 0, 'and its calls');

  for (const n of [2, 3, 4]) await store.put(record(`resp_${n}`, [fc(n)]));
  t.equal(await store.get('resp_2'), undefined, 'least recently used dropped beyond maxEntries');
  t.ok(await store.get('resp_3'));
  t.ok(await store.get('resp_4'));
  await store.close?.();
  t.equal(await store.get('resp_4'), undefined, 'close clears');
});

t.test('an id in both the output and the input of one response: the output item is indexed', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 10 });
  await store.put(record('resp_1', [{ id: 'same', type: 'message', role: 'assistant', content: 'output' }], [{ id: 'same', type: 'message', role: 'user', content: 'input' }]));
  t.equal((await store.getItems(['same'])).get('same')?.content, 'output');
});
