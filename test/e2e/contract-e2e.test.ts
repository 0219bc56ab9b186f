import t, { type Test } from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { CORRECTIVE, isReask, readChatStream, ROWS, sseData, TOOLS } from '../helpers/contract-rows.js';

// The request's tool contract against an OpenAI-compatible upstream that breaks it the way open
// models do: every row of the table, JSON and SSE, chat and Responses. The first answer breaks
// the rule; the re-ask (the corrective message last) keeps it. The client gets the kept answer,
// and the upstream got exactly one re-ask whose last message says what was wrong.

let row = ROWS[0];
const upstream = await startOpenAIEmulator({ apiKey: 'k', script: (body) => (isReask(body) ? row.good : row.bad) });
const gw = await startGateway({
  yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, 'models:\n  agent:\n    provider: up\n    model: open-model\n'),
});
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const post = (path: string, body: unknown) => fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const chatBody = (stream: boolean) => ({ model: 'agent', stream, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS, ...row.fields });
const responsesBody = (stream: boolean) => ({
  model: 'agent',
  stream,
  input: 'Weather in Paris?',
  tools: TOOLS.map((tool) => ({ type: 'function', name: tool.function.name, description: tool.function.description, parameters: tool.function.parameters })),
  ...responsesFields(row.fields),
});

/** The chat contract fields as the Responses API spells them. */
function responsesFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...fields };
  const choice = fields.tool_choice as { type?: string; function?: { name: string } } | undefined;
  if (choice && typeof choice === 'object' && choice.function) out.tool_choice = { type: 'function', name: choice.function.name };
  return out;
}

function checkUpstream(t: Test, before: number): void {
  const sent = upstream.requests.slice(before).filter((r) => r.path === '/v1/chat/completions');
  t.equal(sent.length, 2, 'the first call and exactly one re-ask');
  const reask = sent[1]?.body;
  const last = reask?.messages.at(-1);
  t.equal(last?.role, 'user');
  t.match(last?.content, CORRECTIVE, 'the corrective message is what the upstream received');
  t.match(last?.content, row.says);
  t.same(reask.tool_choice, sent[0].body.tool_choice, 'the re-ask keeps the request\'s own fields');
  t.same(reask.messages.slice(0, sent[0].body.messages.length), sent[0].body.messages, 'the original request first');
  t.equal(reask.messages[sent[0].body.messages.length].role, 'assistant', "then the model's answer");
}

const parsed = (calls: Array<{ name: string; arguments: string }>) => calls.map((call) => ({ name: call.name, arguments: JSON.parse(call.arguments) }));

for (const current of ROWS) {
  t.test(`chat JSON: ${current.name}`, async (t) => {
    row = current;
    const before = upstream.requests.length;
    const response = await post('/v1/chat/completions', chatBody(false));
    t.equal(response.status, 200);
    const body: any = await response.json();
    const message = body.choices[0].message;
    t.same(parsed((message.tool_calls ?? []).map((c: any) => c.function)), current.expectCalls);
    if (current.expectText) t.match(message.content, current.expectText);
    t.equal(body.choices[0].finish_reason, current.expectCalls.length > 0 ? 'tool_calls' : 'stop');
    checkUpstream(t, before);
  });

  t.test(`chat SSE: ${current.name}`, async (t) => {
    row = current;
    const before = upstream.requests.length;
    const response = await post('/v1/chat/completions', chatBody(true));
    t.equal(response.status, 200);
    const stream = readChatStream(await response.text());
    t.equal(stream.done, 1, 'exactly one [DONE]');
    t.same(parsed(stream.calls), current.expectCalls, 'only calls that keep the contract reached the client');
    if (current.expectText) t.match(stream.content, current.expectText);
    t.equal(stream.finish, current.expectCalls.length > 0 ? 'tool_calls' : 'stop');
    checkUpstream(t, before);
  });

  t.test(`Responses JSON: ${current.name}`, async (t) => {
    row = current;
    const before = upstream.requests.length;
    const response = await post('/v1/responses', responsesBody(false));
    t.equal(response.status, 200);
    const body: any = await response.json();
    const calls = body.output.filter((item: any) => item.type === 'function_call');
    t.same(parsed(calls), current.expectCalls);
    checkUpstream(t, before);
  });

  t.test(`Responses SSE: ${current.name}`, async (t) => {
    row = current;
    const before = upstream.requests.length;
    const response = await post('/v1/responses', responsesBody(true));
    t.equal(response.status, 200);
    const events = sseData(await response.text()).map((data) => JSON.parse(data));
    const added = events.filter((event) => event.type === 'response.output_item.added' && event.item.type === 'function_call');
    t.same(added.map((event) => event.item.name), current.expectCalls.map((call) => call.name), 'no call item for a broken call');
    const completed = events.find((event) => event.type === 'response.completed');
    t.ok(completed, 'the response completed');
    t.same(parsed(completed.response.output.filter((item: any) => item.type === 'function_call')), current.expectCalls);
    checkUpstream(t, before);
  });
}
