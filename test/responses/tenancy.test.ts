import t, { type Test } from 'tap';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/openai-server.js';
import { post, startReliableGateway } from '../helpers/reliable-gateway.js';
import { startRedis } from '../helpers/redis-server.js';
import { startResponsesEmulator, type ResponsesEmulator } from './emulator-responses.js';

// Tenants never see each other (issue 14 §3): with gateway keys, what key A stored (responses,
// client-chosen item ids, call ids in the Responses store and in the call ledger) is invisible to
// key B, which gets exactly the answer it would get for an id that never existed. Run on the
// memory state and on a real redis-server.

const ALPHA = { authorization: 'Bearer tg-alpha-key-0001' };
const BETA = { authorization: 'Bearer tg-beta-key-00002' };
const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };
const CHAT_WEATHER = { type: 'function', function: { name: 'get_weather', parameters: WEATHER.parameters } };
const BRIDGED = 'oc/gpt-4o-mini';
const NATIVE = 'openai/gpt-4o-mini';

function yaml(chat: OpenAIEmulator, responses: ResponsesEmulator, state: string): string {
  return `providers:
  oc: {type: openai-compatible, baseUrl: ${chat.url}, apiKey: sk-chat-1234}
  openai: {type: openai, baseUrl: ${responses.url}, apiKey: sk-oa-12345}
${state}
auth:
  keys:
    - {key: tg-alpha-key-0001, name: alpha}
    - {key: tg-beta-key-00002, name: beta}
`;
}

async function call(url: string, method: string, path: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  const res = await fetch(`${url}${path}`, { method, headers });
  return { status: res.status, json: await res.json() };
}

/** The error a key gets for `id`, with the id itself replaced: comparable with the unknown-id error. */
const shapeOf = (json: any, id: string): string => JSON.stringify(json).replaceAll(id, '<id>');

function scenarios(t: Test, state: () => Promise<{ yaml: string; close(): Promise<void> }>): void {
  t.test('scenarios', async (t) => {
    const chat = await startOpenAIEmulator({ apiKey: 'sk-chat-1234' });
    const responses = await startResponsesEmulator({ apiKey: 'sk-oa-12345' });
    const backing = await state();
    const gw = await startReliableGateway(yaml(chat, responses, backing.yaml));
    t.teardown(async () => {
      await gw.close();
      await backing.close();
      await chat.close();
      await responses.close();
    });
    const lastChatBody = (): string => JSON.stringify(chat.requests.at(-1)?.body);

    // Key A: a bridged response with a client-chosen item id, and its function call.
    const oslo = { id: 'msg_1', type: 'message', role: 'user', content: 'Weather in Oslo?' };
    const a = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [oslo], tools: [WEATHER] }, ALPHA);
    t.equal(a.status, 200);
    const aCall = a.json.output.find((item: any) => item.type === 'function_call');
    t.match(aCall, { call_id: String, arguments: /Oslo/ }, "A's answer is a call for Oslo");

    t.test('previous_response_id of another key: 400 as unknown (bridge and native)', async (t) => {
      const missing = await post(gw.url, '/v1/responses', { model: BRIDGED, input: 'more', previous_response_id: 'resp_nope' }, BETA);
      const sent = chat.requests.length;
      const other = await post(gw.url, '/v1/responses', { model: BRIDGED, input: 'more', previous_response_id: a.json.id }, BETA);
      t.equal(other.status, 400);
      t.equal(shapeOf(other.json, a.json.id), shapeOf(missing.json, 'resp_nope'));
      t.equal(chat.requests.length, sent, "A's conversation never went upstream for B");

      const native = await post(gw.url, '/v1/responses', { model: NATIVE, input: 'Remember: tangerine.' }, ALPHA);
      t.equal(native.status, 200);
      const before = responses.requests.length;
      const stolen = await post(gw.url, '/v1/responses', { model: NATIVE, input: 'What was the word?', previous_response_id: native.json.id }, BETA);
      t.equal(stolen.status, 400, 'not forwarded to the upstream, which would know the id');
      t.equal(stolen.json.error.code, 'previous_response_not_found');
      t.equal(responses.requests.length, before, 'the upstream was not called');
      const own = await post(gw.url, '/v1/responses', { model: NATIVE, input: 'What was the word?', previous_response_id: native.json.id }, ALPHA);
      t.equal(own.status, 200, 'A continues its own response');
    });

    t.test('client-chosen item ids are per key: item_reference resolves in the caller scope only', async (t) => {
      const missing = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [{ type: 'item_reference', id: 'msg_nope' }] }, BETA);
      const other = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [{ type: 'item_reference', id: 'msg_1' }] }, BETA);
      t.equal(other.status, 404);
      t.equal(shapeOf(other.json, 'msg_1'), shapeOf(missing.json, 'msg_nope'));
      // B's own msg_1 is B's, even though A wrote msg_1 first.
      const rome = { id: 'msg_1', type: 'message', role: 'user', content: 'Weather in Rome?' };
      t.equal((await post(gw.url, '/v1/responses', { model: BRIDGED, input: [rome] }, BETA)).status, 200);
      const mine = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [{ type: 'item_reference', id: 'msg_1' }] }, BETA);
      t.equal(mine.status, 200);
      t.match(lastChatBody(), /Rome/);
      t.notMatch(lastChatBody(), /Oslo/, "B's reference is B's message");
      const theirs = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [{ type: 'item_reference', id: 'msg_1' }] }, ALPHA);
      t.equal(theirs.status, 200);
      t.match(lastChatBody(), /Oslo/, "and A's is still A's");

      const native = await post(gw.url, '/v1/responses', { model: NATIVE, input: 'Weather in Lima?', tools: [WEATHER] }, ALPHA);
      const item = native.json.output[0];
      const before = responses.requests.length;
      const stolen = await post(gw.url, '/v1/responses', { model: NATIVE, input: [{ type: 'item_reference', id: item.id }] }, BETA);
      t.equal(stolen.status, 404, 'an item of A is unknown to B on a native upstream too');
      t.equal(responses.requests.length, before, 'the upstream was not asked');
    });

    t.test("a tool output with another key's call id: A's call is not restored for B", async (t) => {
      const fresh = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [oslo], tools: [WEATHER] }, ALPHA);
      const freshCall = fresh.json.output.find((item: any) => item.type === 'function_call');
      const output = { type: 'function_call_output', call_id: freshCall.call_id, output: '21C' };
      const res = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [{ role: 'user', content: 'hi' }, output], tools: [WEATHER] }, BETA);
      t.equal(res.status, 200);
      t.notMatch(lastChatBody(), /Oslo/, "A's call arguments never reach B's upstream request");
      t.notMatch(lastChatBody(), /"tool_calls"/, 'no call was restored');
      const own = await post(gw.url, '/v1/responses', { model: BRIDGED, input: [oslo, output], tools: [WEATHER] }, ALPHA);
      t.equal(own.status, 200);
      t.match(lastChatBody(), /Oslo/, 'A gets its own call restored (positive control)');
    });

    t.test("the call ledger: another key's call id restores nothing, in the upstream request and in lint", async (t) => {
      const user = { role: 'user', content: 'What is the weather in Oslo?' };
      const first = await post(gw.url, '/v1/chat/completions', { model: BRIDGED, messages: [user], tools: [CHAT_WEATHER] }, ALPHA);
      t.equal(first.status, 200);
      const callId = first.json.choices[0].message.tool_calls[0].id;
      const history = { model: BRIDGED, tools: [CHAT_WEATHER], messages: [{ role: 'user', content: 'hi' }, { role: 'tool', tool_call_id: callId, content: '21C' }] };
      const b = await post(gw.url, '/v1/chat/completions', history, BETA);
      t.equal(b.status, 200);
      t.notMatch(lastChatBody(), /Oslo/, "A's call is not in B's upstream request");
      const lintB = await post(gw.url, '/v1/toolgate/lint', history, BETA);
      t.equal(lintB.status, 200);
      t.notMatch(JSON.stringify(lintB.json.repaired_request), /Oslo/, "lint as B does not show A's call");
      t.notMatch(JSON.stringify(lintB.json.findings), /restored/);
      // A's own conversation (a restore also needs the history the call was answered in, #45).
      const lintA = await post(gw.url, '/v1/toolgate/lint', { ...history, messages: [user, history.messages[1]] }, ALPHA);
      t.match(JSON.stringify(lintA.json.findings), /restored/, 'lint as A restores its own call (positive control)');
      t.match(JSON.stringify(lintA.json.repaired_request.messages), /"tool_calls"/, 'the call itself');
    });

    t.test('GET, DELETE and input_items of another key: the unknown-id 404', async (t) => {
      const unknown = 'resp_0123456789abcdef0123456789abcdef0123456789abcdef';
      for (const [method, suffix] of [['GET', ''], ['GET', '/input_items'], ['DELETE', '']] as const) {
        const missing = await call(gw.url, method, `/v1/responses/${unknown}${suffix}`, BETA);
        const other = await call(gw.url, method, `/v1/responses/${a.json.id}${suffix}`, BETA);
        t.equal(other.status, 404, `${method} ${suffix || '/'} by B`);
        t.equal(shapeOf(other.json, a.json.id), shapeOf(missing.json, unknown), 'the same error as an unknown id');
      }
      const own = await call(gw.url, 'GET', `/v1/responses/${a.json.id}`, ALPHA);
      t.equal(own.status, 200, "B's DELETE did not delete it: A still reads it");
      t.equal((await call(gw.url, 'GET', `/v1/responses/${a.json.id}/input_items`, ALPHA)).json.data[0].id, 'msg_1');
    });
  });
}

t.test('memory state', async (t) => {
  scenarios(t, async () => ({ yaml: '', close: async () => undefined }));
});

t.test('redis state', async (t) => {
  scenarios(t, async () => {
    const redis = await startRedis();
    return { yaml: `state: {type: redis, url: "${redis.url}", keyPrefix: "tenancy:"}`, close: () => redis.close() };
  });
});
