import t from 'tap';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { askJson, startAnswerRig, WEATHER } from './answer-rig.js';

// A valid request is not touched: histories built from toolgate's own answers, from the official
// SDKs' serialisation of them, and the shapes providers' own clients send pass strict mode with no
// finding, and what goes upstream says the same thing.

const rig = await startAnswerRig('repair:\n  mode: strict\n');
t.teardown(() => rig.close());

const CALL_ID = 'call_Rk2pW8xQv4mZt7YbN1cH3sJd';

async function post(body: Record<string, unknown>): Promise<{ status: number; headers: Headers; json: Record<string, unknown> }> {
  const res = await fetch(`${rig.gateway.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Record<string, unknown> };
}

t.test("the README's two-turn loop, sending toolgate's own answer back as it is, passes strict mode", async (t) => {
  rig.answer = { toolCalls: [{ id: CALL_ID, name: 'get_weather', arguments: '{"city":"Paris"}' }] };
  const messages: ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
  const first = await rig.client.chat.completions.create({ model: 'native/gpt-4o', messages, tools: [WEATHER] });
  const message = first.choices[0].message;
  t.equal(message.refusal, null, 'the answer carries refusal: null, as OpenAI answers do');
  messages.push(message, { role: 'tool', tool_call_id: CALL_ID, content: 'sunny, 21°C' });
  rig.answer = { content: 'Sunny, 21°C.' };
  const raw = await rig.client.chat.completions.create({ model: 'native/gpt-4o', messages, tools: [WEATHER] }).withResponse();
  t.equal(raw.data.choices[0].message.content, 'Sunny, 21°C.');
  t.equal(raw.response.headers.get('x-toolgate-repairs'), null, 'no finding');
  t.equal(raw.response.headers.get('x-toolgate-warnings'), null, 'no warning');
});

t.test("a Python SDK model_dump() of the answer (nulls, annotations: []) passes strict mode unchanged in meaning", async (t) => {
  rig.answer = { content: 'ok' };
  const dumped = { role: 'assistant', content: null, refusal: null, audio: null, function_call: null, annotations: [], tool_calls: [{ id: CALL_ID, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] };
  const res = await post({ model: 'native/gpt-4o', tools: [WEATHER], tool_choice: null, parallel_tool_calls: null, messages: [{ role: 'user', content: 'hi', name: null }, dumped, { role: 'tool', tool_call_id: CALL_ID, content: 'sunny' }] });
  t.equal(res.status, 200, JSON.stringify(res.json).slice(0, 300));
  t.equal(res.headers.get('x-toolgate-repairs'), null);
  const sent = rig.lastBody as { messages: Array<Record<string, unknown>> };
  t.same(sent.messages[1].tool_calls, dumped.tool_calls, 'the calls go upstream as sent');
  t.notOk('function_call' in sent.messages[1], 'a null is absent');
});

t.test("what providers' own clients send: tools without type, tool_choice without type, tool_calls: null on a user message", async (t) => {
  rig.answer = { content: 'ok' };
  const cases: Array<[string, Record<string, unknown>]> = [
    ['Mistral client tools without type', { tools: [{ function: WEATHER.function }] }],
    ['HF client tool_choice without type', { tools: [WEATHER], tool_choice: { function: { name: 'get_weather' } } }],
    ['tool_calls: null on a user message', { tools: [WEATHER], messages: [{ role: 'user', content: 'hi', tool_calls: null }] }],
  ];
  for (const [label, extra] of cases) {
    // A named tool_choice asks for that call (the contract checks it).
    rig.answer = extra.tool_choice ? { toolCalls: [{ id: CALL_ID, name: 'get_weather', arguments: '{"city":"Paris"}' }] } : { content: 'ok' };
    const res = await post({ model: 'open/mistral-small', messages: [{ role: 'user', content: 'hi' }], ...extra });
    t.equal(res.status, 200, `${label}: ${JSON.stringify(res.json).slice(0, 200)}`);
    t.equal(res.headers.get('x-toolgate-repairs'), null, `${label}: no finding`);
    const sent = rig.lastBody as { tools?: Array<{ type?: string }>; tool_choice?: { type?: string } };
    t.ok(sent.tools?.every((tool) => tool.type === 'function'), `${label}: tools go upstream typed`);
    if (extra.tool_choice) t.same(sent.tool_choice, { type: 'function', function: { name: 'get_weather' } });
  }
});

t.test('real errors name the right param, not the "malformed request" safety net', async (t) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ messages: [{ role: 'user', content: 'hi', tool_calls: 'x' }] }, 'messages[0].tool_calls'],
    [{ messages: [{ role: 'user', content: 'hi' }], tools: [WEATHER], tool_choice: { function: {} } }, 'tool_choice'],
    [{ messages: [{ role: 'user', content: 'hi' }], tools: [{ function: { description: 'no name' } }] }, 'tools[0].function.name'],
  ];
  for (const [body, param] of cases) {
    const res = await post({ model: 'open/mistral-small', ...body });
    const error = res.json.error as { param?: string; message?: string };
    t.equal(res.status, 400);
    t.equal(error.param, param, error.message ?? "");
    t.notMatch(error.message ?? '', /malformed/);
  }
});

t.test('a history with a custom-tool call passes, also when another repair runs', async (t) => {
  rig.answer = { content: 'ok' };
  const custom = { role: 'assistant', content: null, tool_calls: [{ id: 'call_custom_grep_0001', type: 'custom', custom: { name: 'grep', input: 'TODO' } }] };
  const messages = [{ role: 'user', content: 'find todos' }, custom, { role: 'tool', tool_call_id: 'call_custom_grep_0001', content: 'a.ts:1' }];
  t.equal((await post({ model: 'native/gpt-4o', tools: [WEATHER], messages })).status, 200, 'strict mode: nothing to change');
  const repairing = await startAnswerRig();
  t.teardown(() => repairing.close());
  repairing.answer = { content: 'ok' };
  // An object arguments elsewhere makes the arguments pass run: the custom call's result is still its result.
  const withObjectArgs = [...messages, { role: 'assistant', content: null, tool_calls: [{ id: CALL_ID, type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] }, { role: 'tool', tool_call_id: CALL_ID, content: 'sunny' }];
  const view = await askJson(repairing, { model: 'native/gpt-4o', tools: [WEATHER], messages: withObjectArgs });
  t.equal(view.status, 200);
  t.equal(view.headers.get('x-toolgate-repairs'), 'arguments_stringified=1');
});
