import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { validateSchema } from '../helpers/openapi.js';
import { startResponsesEmulator } from './emulator-responses.js';

// Conversation state on every upstream: GET / DELETE / input_items, previous_response_id,
// item_reference (the AI SDK default), reasoning items by id, store:false, OpenAI's errors.

const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

t.test('Responses state', async (t) => {
  const openai = await startResponsesEmulator({ apiKey: 'sk-oa' });
  const gw = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: openai.url, apiKey: 'sk-oa' } }), logLevel: 'warn' });
  t.teardown(async () => {
    await gw.close();
    await openai.close();
  });
  const post = async (body: unknown): Promise<{ status: number; json: any; headers: Headers }> => {
    const res = await fetch(`${gw.baseURL}/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: await res.json(), headers: res.headers };
  };
  const call = async (method: string, path: string): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${gw.baseURL}${path}`, { method });
    return { status: res.status, json: await res.json() };
  };
  const sim = 'simulator/weather';

  t.test('GET, input_items, DELETE', async (t) => {
    const first = await post({ model: sim, input: [{ role: 'user', content: 'Weather in Paris?' }], tools: [WEATHER], instructions: 'Be brief.' });
    t.equal(first.status, 200);
    const fc = first.json.output[0];
    const second = await post({ model: sim, input: [{ role: 'user', content: 'Weather in Paris?' }, fc, { type: 'function_call_output', call_id: fc.call_id, output: '21C' }], tools: [WEATHER] });
    const got = await call('GET', `/responses/${second.json.id}`);
    t.same(got.json, second.json, 'GET returns the stored response');
    const items = await call('GET', `/responses/${second.json.id}/input_items`);
    t.same(items.json.data.map((i: any) => i.type), ['function_call_output', 'function_call', 'message'], 'newest first by default');
    t.same(validateSchema('ResponseItemList', items.json), [], 'the list matches the spec');
    t.ok(items.json.data.every((i: any) => typeof i.id === 'string'), 'every listed item has an id');
    t.equal(items.json.data[1].id, fc.id, "the echoed call keeps the gateway's id");
    const asc = await call('GET', `/responses/${second.json.id}/input_items?order=asc&limit=2`);
    t.same(asc.json.data.map((i: any) => i.type), ['message', 'function_call']);
    t.equal(asc.json.has_more, true);
    const after = await call('GET', `/responses/${second.json.id}/input_items?order=asc&after=${asc.json.last_id}`);
    t.same(after.json.data.map((i: any) => i.type), ['function_call_output']);
    t.equal((await call('GET', `/responses/${second.json.id}/input_items?limit=0`)).status, 400);

    const deleted = await call('DELETE', `/responses/${first.json.id}`);
    t.same(deleted.json, { id: first.json.id, object: 'response', deleted: true });
    const gone = await call('GET', `/responses/${first.json.id}`);
    t.equal(gone.status, 404);
    t.match(gone.json.error, { message: `Response with id '${first.json.id}' not found.`, type: 'invalid_request_error' });
    t.equal((await call('DELETE', `/responses/${first.json.id}`)).status, 404);
  });

  t.test('previous_response_id and store:false on a bridged upstream', async (t) => {
    const unknown = await post({ model: sim, previous_response_id: 'resp_missing', input: 'hi' });
    t.equal(unknown.status, 400);
    t.same(unknown.json.error, { message: "Previous response with id 'resp_missing' not found.", type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' });
    const unstored = await post({ model: sim, input: 'Weather in Oslo?', tools: [WEATHER], store: false });
    t.equal(unstored.json.store, false);
    t.equal((await call('GET', `/responses/${unstored.json.id}`)).status, 404, 'store:false is not kept');
    t.equal((await post({ model: sim, previous_response_id: unstored.json.id, input: 'more' })).status, 400);
  });

  t.test('item_reference (AI SDK) and reasoning items by id resolve on a bridged upstream', async (t) => {
    const first = await post({ model: sim, input: [{ role: 'user', content: [{ type: 'input_text', text: 'Weather in Rome?' }] }], tools: [WEATHER] });
    const fc = first.json.output[0];
    await gw.gateway.responseStore.put({
      response: { ...first.json, id: 'resp_reasoned', output: [{ id: 'rs_kept', type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text: 'hmm' }] }] },
      input: [],
    });
    const next = await post({
      model: sim,
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Rome?' }] },
        { type: 'item_reference', id: fc.id },
        { id: 'rs_kept', type: 'reasoning', summary: [] },
        { id: 'rs_never_seen', type: 'reasoning', summary: [] },
        { type: 'function_call_output', call_id: fc.call_id, output: '19C' },
      ],
      tools: [WEATHER],
    });
    t.equal(next.status, 200, JSON.stringify(next.json.error ?? ''));
    t.match(next.json.output[0].content[0].text, /19C/, 'the referenced call paired with its output');
    const missing = await post({ model: sim, input: [{ type: 'item_reference', id: 'fc_nope' }] });
    t.equal(missing.status, 404);
    t.match(missing.json.error, { message: "Item with id 'fc_nope' not found.", param: 'input[0]' });
  });

  t.test('native passthrough keeps OpenAI state and the gateway’s', async (t) => {
    const first = await post({ model: 'openai/gpt-4.1', input: 'Weather in Lima?', tools: [WEATHER] });
    t.equal(first.status, 200);
    t.equal((await call('GET', `/responses/${first.json.id}`)).json.id, first.json.id, 'native responses are stored too');
    const fc = first.json.output[0];
    const chained = await post({ model: 'openai/gpt-4.1', previous_response_id: first.json.id, input: [{ call_id: fc.call_id, output: '25C' }], tools: [WEATHER] });
    t.equal(chained.status, 200, 'untyped output repaired, previous id forwarded');
    t.equal(chained.headers.get('x-toolgate-repairs'), 'item_type_inferred=1');
    t.equal(openai.requests.at(-1)?.body.previous_response_id, first.json.id, 'OpenAI resolves its own id');
    t.match(chained.json.output[0].content[0].text, /25C/);

    const theirs = await post({ model: 'openai/gpt-4.1', previous_response_id: 'resp_unknown_everywhere', input: 'x' });
    t.equal(theirs.status, 400);
    t.same(theirs.json.error, { message: "Previous response with id 'resp_unknown_everywhere' not found.", type: 'invalid_request_error', param: 'previous_response_id', code: 'previous_response_not_found' }, "OpenAI's own answer, passed through");

    const bridged = await post({ model: sim, input: 'Weather in Kyiv?', tools: [WEATHER] });
    const switched = await post({ model: 'openai/gpt-4.1', previous_response_id: bridged.json.id, input: [{ type: 'function_call_output', call_id: bridged.json.output[0].call_id, output: '5C' }], tools: [WEATHER] });
    t.equal(switched.status, 200, 'a bridged response continued on OpenAI: its history goes inline');
    const sent = openai.requests.at(-1)?.body;
    t.notOk(sent.previous_response_id, 'no id OpenAI never issued');
    t.same(sent.input.map((i: any) => i.type), ['message', 'function_call', 'function_call_output']);
    t.notOk(sent.input.some((i: any) => 'id' in i), 'gateway item ids stripped');
  });

  t.test('validation errors name the param', async (t) => {
    const res = await post({ input: 'hi' });
    t.equal(res.status, 400);
    t.same(res.json.error, { message: "Missing required parameter: 'model'.", type: 'invalid_request_error', param: 'model', code: 'missing_required_parameter' });
    const tools = await post({ model: sim, input: 'hi', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search_preview' } });
    t.match(tools.json.error, { param: 'tool_choice', code: 'unsupported_tool_type' });
  });
});
