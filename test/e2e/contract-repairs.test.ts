import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { readChatStream, sseData } from '../helpers/contract-rows.js';

// A fix the contract counts as harmless reaches the client (docs/answers.md): arguments with a
// trailing comma, a number and a boolean written as strings are valid after repairs that cannot
// change meaning, so the client gets them repaired (its JSON.parse would throw on the original),
// in chat JSON and SSE, the Responses bridge and the Messages API, said in x-toolgate-repairs
// (in a stream: `toolgate_repairs` on the finish chunk) and toolgate_repairs_total.

const RAW = '{"stops": [{"city": "Oslo", "nights": "2"}], "refundable": "true",}';
const REPAIRED = { stops: [{ city: 'Oslo', nights: 2 }], refundable: true };
const SCHEMA = {
  type: 'object',
  properties: {
    stops: { type: 'array', items: { type: 'object', properties: { city: { type: 'string' }, nights: { type: 'integer' } }, required: ['city', 'nights'] } },
    refundable: { type: 'boolean' },
  },
  required: ['stops'],
};
const HEADER = 'answer_arguments_repaired=1,answer_arguments_coerced=1';

const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) =>
    body.tools?.[0]?.function.name === 'book' ? { toolCalls: [{ name: 'book', arguments: '{"when":"2025-06-01T10:00:00"}' }] } : { toolCalls: [{ name: 'plan_trip', arguments: RAW }] },
});
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'models:\n  trips:\n    provider: up\n    model: m-trips\n') });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chat = (stream: boolean) =>
  post('/v1/chat/completions', { model: 'trips', stream, messages: [{ role: 'user', content: 'Plan Oslo' }], tools: [{ type: 'function', function: { name: 'plan_trip', parameters: SCHEMA } }] });
async function metric(kind: string): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`toolgate_repairs_total{kind="${kind}"}`));
  return line ? Number(line.split(' ').pop()) : 0;
}

t.test('chat JSON: the repaired arguments, said in x-toolgate-repairs and the metric, no re-ask', async (t) => {
  const before = upstream.requests.length;
  const coerced = await metric('answer_arguments_coerced');
  const response = await chat(false);
  t.equal(response.status, 200);
  t.equal(response.headers.get('x-toolgate-repairs'), HEADER);
  const body: any = await response.json();
  const args = body.choices[0].message.tool_calls[0].function.arguments;
  t.same(JSON.parse(args), REPAIRED, "the client's JSON.parse reads the repaired object");
  t.equal(upstream.requests.length - before, 1, 'valid after harmless repairs: not re-asked');
  t.equal((await metric('answer_arguments_coerced')) - coerced, 1);
});

t.test('chat SSE: the call released whole with the repaired arguments; toolgate_repairs on the finish chunk', async (t) => {
  const stream = readChatStream(await (await chat(true)).text());
  t.equal(stream.done, 1);
  t.equal(stream.calls.length, 1);
  t.same(JSON.parse(stream.calls[0].arguments), REPAIRED);
  const finish = stream.chunks.find((chunk) => chunk.choices[0]?.finish_reason);
  t.equal(finish.toolgate_repairs, HEADER);
});

t.test('Responses (bridge): the function_call item carries the repaired arguments', async (t) => {
  const response = await post('/v1/responses', { model: 'trips', input: 'Plan Oslo', tools: [{ type: 'function', name: 'plan_trip', parameters: SCHEMA }] });
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-repairs'), /answer_arguments_repaired=1/);
  t.match(response.headers.get('x-toolgate-repairs'), /answer_arguments_coerced=1/);
  const body: any = await response.json();
  const call = body.output.find((item: any) => item.type === 'function_call');
  t.same(JSON.parse(call.arguments), REPAIRED);
});

const messages = (stream: boolean) =>
  post('/v1/messages', { model: 'trips', max_tokens: 256, stream, messages: [{ role: 'user', content: 'Plan Oslo' }], tools: [{ name: 'plan_trip', input_schema: SCHEMA }] });

t.test('Messages JSON: tool_use.input is the repaired object', async (t) => {
  const response = await messages(false);
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-repairs'), /answer_arguments_repaired=1/);
  const body: any = await response.json();
  const use = body.content.find((block: any) => block.type === 'tool_use');
  t.same(use.input, REPAIRED);
});

t.test('Messages stream: the input_json_delta pieces join to the repaired object', async (t) => {
  const events = sseData(await (await messages(true)).text()).map((data) => JSON.parse(data));
  const json = events
    .filter((event) => event.type === 'content_block_delta' && event.delta?.type === 'input_json_delta')
    .map((event) => event.delta.partial_json)
    .join('');
  t.same(JSON.parse(json), REPAIRED);
});

t.test('format is an annotation: a date-time without its offset costs no re-ask and goes on as sent', async (t) => {
  const before = upstream.requests.length;
  const tools = [{ type: 'function', function: { name: 'book', parameters: { type: 'object', properties: { when: { type: 'string', format: 'date-time' } }, required: ['when'] } } }];
  const response = await post('/v1/chat/completions', { model: 'trips', messages: [{ role: 'user', content: 'Book it' }], tools, tool_choice: 'required' });
  t.equal(response.status, 200);
  const body: any = await response.json();
  t.equal(body.choices[0].message.tool_calls[0].function.arguments, '{"when":"2025-06-01T10:00:00"}');
  t.equal(upstream.requests.length - before, 1, 'no re-ask');
  t.notMatch(response.headers.get('x-toolgate-warnings') ?? '', /contract_/);
});
