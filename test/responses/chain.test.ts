import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startRedis } from '../helpers/redis-server.js';
import { loadHistoryContext, MAX_CHAIN } from '../../src/responses/context.js';
import { createMemoryResponseStore, type ResponseStore, type StoredResponse } from '../../src/state/response-store.js';
import type { Item, ResponseObject } from '../../src/api/responses-types.js';

// previous_response_id chains: a link that is gone is an error, never lost context; reading a chain
// costs the same number of store reads whatever its length; past MAX_CHAIN the context is cut and
// said so. With Redis down, only what needs the store fails; /readyz says so.

const user = (text: string): Item => ({ id: `msg_${text}`, type: 'message', role: 'user', content: text });
const answer = (id: string): ResponseObject => ({ id, object: 'response', output: [{ id: `out_${id}`, type: 'message', role: 'assistant', content: [{ type: 'output_text', text: id, annotations: [] }] }] }) as unknown as ResponseObject;

/** Stores `length` chained responses the way the service does (each with the chain its context had). */
async function storeChain(store: ResponseStore, length: number, name = 'r'): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < length; i++) {
    const id = `resp_${name}${i}`;
    const record: StoredResponse = { response: answer(id), input: [user(`${name}${i}`)] };
    if (i > 0) {
      record.previousResponseId = ids[i - 1];
      record.chain = ids.slice(Math.max(0, i - (MAX_CHAIN - 1)), i);
    }
    await store.put(record);
    ids.push(id);
  }
  return ids;
}

/** The store with its reads counted. */
function counted(store: ResponseStore): { store: ResponseStore; reads: () => number } {
  let reads = 0;
  const wrapped: ResponseStore = {
    ...store,
    get: (id) => (reads++, store.get(id)),
    getMany: (ids) => (reads++, store.getMany(ids)),
    getItems: (ids) => (reads++, store.getItems(ids)),
    findCallResponses: (ids) => (reads++, store.findCallResponses(ids)),
  };
  return { store: wrapped, reads: () => reads };
}

t.test('store reads per request do not grow with the chain', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 10_000 });
  const short = await storeChain(store, 3, 's');
  const long = await storeChain(store, 300, 'l');
  const readsFor = async (id: string): Promise<{ reads: number; previous: number }> => {
    const view = counted(store);
    const context = await loadHistoryContext(view.store, [user('next')], { previousResponseId: id, restore: true });
    return { reads: view.reads(), previous: context.previous.length };
  };
  const a = await readsFor(short[2]);
  const b = await readsFor(long[299]);
  t.equal(a.previous, 6, 'three responses: input and output each');
  t.equal(b.previous, 600, 'the whole chain');
  t.equal(b.reads, a.reads, `${b.reads} reads for 300 links, as for 3`);
});

t.test('a link inside the chain that is gone is an error naming it, never a silent cut', async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100 });
  const ids = await storeChain(store, 4);
  t.ok(await store.delete(ids[0]));
  await t.rejects(loadHistoryContext(store, [user('next')], { previousResponseId: ids[3], restore: true }), {
    status: 400,
    code: 'previous_response_not_found',
    param: 'previous_response_id',
    message: new RegExp(`'${ids[0]}' not found: it is part of the conversation of '${ids[3]}'`),
  });
  // A record stored by an older version (no chain list) is walked, with the same rule.
  const legacy = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100 });
  await legacy.put({ response: answer('resp_a'), input: [user('a')] });
  await legacy.put({ response: answer('resp_b'), input: [user('b')], previousResponseId: 'resp_a' });
  await legacy.put({ response: answer('resp_c'), input: [user('c')], previousResponseId: 'resp_b' });
  t.equal((await loadHistoryContext(legacy, [], { previousResponseId: 'resp_c', restore: false })).previous.length, 6);
  await legacy.delete('resp_a');
  await t.rejects(loadHistoryContext(legacy, [], { previousResponseId: 'resp_c', restore: false }), { code: 'previous_response_not_found', message: /'resp_a' not found/ });
});

t.test(`a chain longer than ${MAX_CHAIN} responses: the newest ${MAX_CHAIN} are sent, said so`, async (t) => {
  const store = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 10_000, maxBytes: 256 * 1024 * 1024 });
  const ids = await storeChain(store, MAX_CHAIN + 5);
  const context = await loadHistoryContext(store, [], { previousResponseId: ids[ids.length - 1], restore: false });
  t.equal(context.previous.length, 2 * MAX_CHAIN);
  t.same(context.previous[0], user(`r5`), 'the oldest kept is the sixth');
  t.same(context.findings.map((f) => [f.kind, f.advisory]), [['previous_context_truncated', true]]);
  t.equal(context.chain.length, MAX_CHAIN - 1, 'what a response stored now keeps');
  const within = await loadHistoryContext(store, [], { previousResponseId: ids[MAX_CHAIN - 1], restore: false });
  t.same(within.findings, [], `exactly ${MAX_CHAIN}: nothing cut`);
});

t.test('over HTTP: deleting the oldest response of a chain makes the next request a 400, not a 200 without context', async (t) => {
  const gw = await startGateway({ yaml: configFor({}), logLevel: 'warn' });
  t.teardown(() => gw.close());
  const post = async (body: unknown): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json() };
  };
  const first = await post({ model: 'simulator/weather', input: 'Hello' });
  const second = await post({ model: 'simulator/weather', input: 'Again', previous_response_id: first.json.id });
  const third = await post({ model: 'simulator/weather', input: 'More', previous_response_id: second.json.id });
  t.equal(third.status, 200);
  t.equal((await fetch(`${gw.baseURL}/responses/${first.json.id}`, { method: 'DELETE' })).status, 200);
  const fourth = await post({ model: 'simulator/weather', input: 'And now?', previous_response_id: third.json.id });
  t.equal(fourth.status, 400);
  t.match(fourth.json.error, { type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found', message: new RegExp(first.json.id) });
});

t.test('Redis down: what does not need the store still answers; what needs it is a clear 503; /readyz says so', async (t) => {
  const redis = await startRedis();
  const gw = await startGateway({ yaml: configFor({}, `state:\n  type: redis\n  url: ${redis.url}\n  commandTimeoutMs: 200\n`), logLevel: 'silent' });
  t.teardown(async () => {
    await gw.close();
    await redis.close();
  });
  const post = async (body: unknown): Promise<{ status: number; json: any; warnings: string | null }> => {
    const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json(), warnings: res.headers.get('x-toolgate-warnings') };
  };
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  const first = await post({ model: 'simulator/weather', input: 'Weather in Oslo?', tools });
  t.equal(first.status, 200);
  t.equal((await fetch(`${gw.url}/readyz`)).status, 200);
  await redis.stop();

  const history = [{ role: 'user', content: 'Weather in Oslo?' }, first.json.output[0], { type: 'function_call_output', call_id: first.json.output[0].call_id, output: '3C' }];
  const unstored = await post({ model: 'simulator/weather', input: history, tools, store: false });
  t.equal(unstored.status, 200, 'a function_call_output with store:false does not need the store');
  t.match(unstored.warnings, /store_unavailable=1/, 'and says what was skipped');
  const stored = await post({ model: 'simulator/weather', input: history, tools });
  t.equal(stored.status, 200, 'store:true: the write is lost (logged), the answer is not');
  const chained = await post({ model: 'simulator/weather', input: 'more', previous_response_id: first.json.id });
  t.equal(chained.status, 503);
  t.equal(chained.json.error.code, 'response_store_unavailable');
  const referenced = await post({ model: 'simulator/weather', input: [{ type: 'item_reference', id: first.json.output[0].id }] });
  t.equal(referenced.json.error?.code, 'response_store_unavailable', 'an item_reference needs the store');

  const ready = await fetch(`${gw.url}/readyz`);
  t.equal(ready.status, 503);
  t.match(await ready.json(), { status: 'not_ready', state: { backend: 'redis', status: 'unavailable' } });
  const health = await fetch(`${gw.url}/healthz`);
  t.equal(health.status, 200, 'liveness is not readiness');
  t.match(await health.json(), { state: { status: 'unavailable' } });
});

t.test('an output that answers no call of the continued chain is a 400 (as OpenAI answers), without a chain it is kept as a user message', async (t) => {
  const gw = await startGateway({ yaml: configFor({}), logLevel: 'silent' });
  t.teardown(() => gw.close());
  const post = async (body: unknown): Promise<{ status: number; json: { id: string; output: Array<Record<string, unknown>>; error?: Record<string, unknown> }; retry: string | null; repairs: string | null }> => {
    const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as never, retry: res.headers.get('x-should-retry'), repairs: res.headers.get('x-toolgate-repairs') };
  };
  const tools = [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];
  const first = await post({ model: 'simulator/weather', input: 'Weather in Oslo?', tools });
  const callId = first.json.output.find((item) => item.type === 'function_call')?.call_id;
  t.type(callId, 'string');
  const unknown = { type: 'function_call_output', call_id: 'call_nowhere', output: '3C' };
  const refused = await post({ model: 'simulator/weather', input: [unknown], tools, previous_response_id: first.json.id });
  t.equal(refused.status, 400);
  t.match(refused.json.error, { type: 'invalid_request_error', param: 'input', code: 'tool_call_not_found' });
  t.match(refused.json.error?.message, /call_nowhere/);
  t.equal(refused.retry, 'false', 'no client retry');
  const answered = await post({ model: 'simulator/weather', input: [{ type: 'function_call_output', call_id: callId, output: '3C' }], tools, previous_response_id: first.json.id });
  t.equal(answered.status, 200, "the chain's own call is answered");
  const stateless = await post({ model: 'simulator/weather', input: [{ role: 'user', content: 'Weather?' }, unknown], tools });
  t.equal(stateless.status, 200, 'without a chain the output is kept as a user message');
  t.match(stateless.repairs, /orphan_tool_result=1/);
});
