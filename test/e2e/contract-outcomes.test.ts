import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { isReask, readChatStream, sseData, TOOLS } from '../helpers/contract-rows.js';

// An upstream that never keeps the contract (its get_weather call always lacks `city`): each
// policy ends as configured, after exactly `maxReasks` re-asks, and the re-asks count as LLM calls.

const upstream = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) =>
    body.parallel_tool_calls === false
      ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Oslo' } }] }
      : { toolCalls: [{ name: 'get_weather', arguments: {} }] },
});
const models = `contract:
  maxReasks: 2
models:
  stubborn:
    provider: up
    model: m-stubborn
  strict:
    provider: up
    model: m-strict
    contract:
      onViolation: error
  lenient:
    provider: up
    model: m-lenient
    contract:
      onViolation: pass
  once:
    provider: up
    model: m-once
    contract:
      maxReasks: 1
  trim:
    provider: up
    model: m-trim
    contract:
      extraCalls: trim
  hurried:
    provider: up
    model: m-hurried
    contract:
      deadlineMs: 1
  off:
    provider: up
    model: m-off
    contract:
      enabled: false
`;
const gw = await startGateway({ yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'k' } }, models) });
t.teardown(async () => {
  await gw.close();
  await upstream.close();
});

const ask = (model: string, stream: boolean, extra: Record<string, unknown> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'Weather in Paris?' }], tools: TOOLS, ...extra }),
  });
const sentFor = (model: string) => upstream.requests.filter((r) => r.body?.model === model);
async function metric(pattern: RegExp): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const line = text.split('\n').find((l) => pattern.test(l));
  return line ? Number(line.split(' ').pop()) : 0;
}

t.test('reask (top-level maxReasks 2): exactly two re-asks, then the contract error', async (t) => {
  const response = await ask('stubborn', false);
  t.equal(response.status, 502);
  const body: any = await response.json();
  t.equal(body.error.code, 'tool_contract_violation');
  t.equal(body.error.type, 'upstream_error');
  t.equal(body.error.param, 'tools');
  t.match(body.error.message, /Provider 'up' \(model 'm-stubborn'\) answered against the request's tool contract after 2 re-asks: the arguments of get_weather do not match its parameters schema: \/ must have required property 'city'/);
  const sent = sentFor('m-stubborn');
  t.equal(sent.length, 3, 'the answer and exactly two re-asks');
  t.same(sent.map((r) => isReask(r.body)), [false, true, true]);
  t.equal(await metric(/^toolgate_reasks_total\{provider="up",model="stubborn",outcome="violated"\}/), 2);
  t.equal(await metric(/^toolgate_contract_violations_total\{provider="up",model="stubborn",kind="invalid_arguments"\}/), 3);
  t.equal(await metric(/^toolgate_llm_calls_total\{provider="up",model="stubborn",endpoint="chat_completions",outcome="success"\}/), 3, 're-asks are LLM calls');
  const access = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.model === 'stubborn' && l.llmCalls !== undefined);
  t.equal(access.at(-1)?.llmCalls, 3, 'the request journal counts the re-asks');
});

t.test('reask in a stream: the error event after the re-asks, no call reached the client', async (t) => {
  const before = sentFor('m-stubborn').length;
  const response = await ask('stubborn', true);
  t.equal(response.status, 200, 'the stream had started');
  const text = await response.text();
  const frames = sseData(text);
  const error = JSON.parse(frames.at(-1) ?? '{}');
  t.equal(error.error?.code, 'tool_contract_violation', 'the stream ends with the error event');
  t.equal(readChatStream(text).calls.length, 0, 'no broken call was shown');
  t.equal(sentFor('m-stubborn').length - before, 3);
});

t.test("a model's own maxReasks overrides the top-level one", async (t) => {
  const response = await ask('once', false);
  t.equal(response.status, 502);
  t.match(((await response.json()) as any).error.message, /after 1 re-ask:/);
  t.equal(sentFor('m-once').length, 2);
});

t.test('error: the contract error at once, JSON and stream', async (t) => {
  const response = await ask('strict', false);
  t.equal(response.status, 502);
  const body: any = await response.json();
  t.equal(body.error.code, 'tool_contract_violation');
  t.notMatch(body.error.message, /re-ask/);
  const stream = sseData(await (await ask('strict', true)).text());
  t.equal(JSON.parse(stream.at(-1) ?? '{}').error?.code, 'tool_contract_violation');
  t.equal(sentFor('m-strict').length, 2, 'one call each, no re-ask');
});

t.test('pass: the answer as it came, with a warning (header; in a stream, on the finish chunk)', async (t) => {
  const response = await ask('lenient', false);
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-warnings'), /contract_invalid_arguments=1/);
  const body: any = await response.json();
  t.equal(body.choices[0].message.tool_calls[0].function.arguments, '{}');
  const stream = readChatStream(await (await ask('lenient', true)).text());
  t.equal(stream.done, 1);
  t.same(stream.calls, [{ name: 'get_weather', arguments: '{}' }]);
  const finish = stream.chunks.find((chunk) => chunk.choices[0]?.finish_reason);
  t.equal(finish.toolgate_warnings, 'contract_invalid_arguments=1');
  t.equal(sentFor('m-lenient').length, 2, 'no re-ask');
});

t.test('extraCalls trim: the first call kept, said in a warning, no re-ask', async (t) => {
  const response = await ask('trim', false, { parallel_tool_calls: false });
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-warnings'), /contract_parallel_calls_trimmed=1/);
  const body: any = await response.json();
  t.same(body.choices[0].message.tool_calls.map((c: any) => JSON.parse(c.function.arguments)), [{ city: 'Paris' }]);
  const stream = readChatStream(await (await ask('trim', true, { parallel_tool_calls: false })).text());
  t.same(stream.calls.map((c) => JSON.parse(c.arguments)), [{ city: 'Paris' }]);
  t.equal(sentFor('m-trim').length, 2);
});

t.test('no re-ask past the deadline: the request already took longer than deadlineMs', async (t) => {
  const response = await ask('hurried', false);
  t.equal(response.status, 502);
  t.notMatch(((await response.json()) as any).error.message, /re-ask/);
  t.equal(sentFor('m-hurried').length, 1, 'no re-ask');
});

t.test('enabled false: answers are not checked', async (t) => {
  const response = await ask('off', false);
  t.equal(response.status, 200);
  t.equal(sentFor('m-off').length, 1);
});
