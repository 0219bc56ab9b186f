import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { isReask, readChatStream, sseData, TOOLS } from '../helpers/contract-rows.js';

// An upstream that never keeps the contract (its get_weather call always lacks `city`): each
// policy ends as configured, after exactly `maxReasks` re-asks, and the re-asks count as LLM calls.
// The default (`reask`) hands on the last answer with its warnings once the re-asks ran out; the
// strict policy (`error`) ends with the contract error.

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
  instant:
    provider: up
    model: m-instant
    contract:
      onViolation: error
      maxReasks: 0
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

t.test('reask (default, top-level maxReasks 2): exactly two re-asks, then the last answer with its warnings', async (t) => {
  const response = await ask('stubborn', false);
  t.equal(response.status, 200, 'the last answer is handed on, not a 502');
  t.match(response.headers.get('x-toolgate-warnings'), /(^|,)contract_invalid_arguments=1(,|$)/);
  const body: any = await response.json();
  t.same(body.choices[0].message.tool_calls.map((c: any) => [c.function.name, c.function.arguments]), [['get_weather', '{}']]);
  const sent = sentFor('m-stubborn');
  t.equal(sent.length, 3, 'the answer and exactly two re-asks');
  t.same(sent.map((r) => isReask(r.body)), [false, true, true]);
  t.equal(await metric(/^toolgate_reasks_total\{provider="up",model="stubborn",outcome="violated"\}/), 2);
  t.equal(await metric(/^toolgate_contract_violations_total\{provider="up",model="stubborn",kind="invalid_arguments"\}/), 3);
  t.equal(await metric(/^toolgate_llm_calls_total\{provider="up",model="stubborn",endpoint="chat_completions",outcome="success"\}/), 3, 're-asks are LLM calls');
  const access = gw.logs.map((l) => JSON.parse(l)).filter((l) => l.model === 'stubborn' && l.llmCalls !== undefined);
  t.equal(access.at(-1)?.llmCalls, 3, 'the request journal counts the re-asks');
});

t.test('reask in a stream: after the re-asks the last answer, its warnings on the finish chunk, one [DONE]', async (t) => {
  const before = sentFor('m-stubborn').length;
  const response = await ask('stubborn', true);
  t.equal(response.status, 200);
  const stream = readChatStream(await response.text());
  t.equal(stream.done, 1);
  t.same(stream.calls, [{ name: 'get_weather', arguments: '{}' }], 'the last answer\'s call, once');
  const finish = stream.chunks.find((chunk) => chunk.choices[0]?.finish_reason);
  t.equal(finish.toolgate_warnings, 'contract_invalid_arguments=1');
  t.equal(sentFor('m-stubborn').length - before, 3);
});

t.test("a model's own maxReasks overrides the top-level one", async (t) => {
  const response = await ask('once', false);
  t.equal(response.status, 200);
  t.equal(sentFor('m-once').length, 2);
});

t.test('error (strict): the same re-asks, then the contract error, JSON and stream', async (t) => {
  const response = await ask('strict', false);
  t.equal(response.status, 502);
  const body: any = await response.json();
  t.equal(body.error.code, 'tool_contract_violation');
  t.equal(body.error.type, 'upstream_error');
  t.equal(body.error.param, 'tools');
  t.match(body.error.message, /Provider 'up' \(model 'm-strict'\) answered against the request's tool contract after 2 re-asks: the arguments of get_weather do not match its parameters schema: \/ must have required property 'city'/);
  t.same(sentFor('m-strict').map((r) => isReask(r.body)), [false, true, true]);
  const text = await (await ask('strict', true)).text();
  t.equal(JSON.parse(sseData(text).at(-1) ?? '{}').error?.code, 'tool_contract_violation', 'the stream ends with the error event');
  t.equal(readChatStream(text).calls.length, 0, 'no broken call was shown');
  t.equal(sentFor('m-strict').length, 6);
  t.equal(await metric(/^toolgate_reasks_total\{provider="up",model="strict",outcome="violated"\}/), 4);
});

t.test('error with maxReasks 0: the contract error at once', async (t) => {
  const response = await ask('instant', false);
  t.equal(response.status, 502);
  const body: any = await response.json();
  t.equal(body.error.code, 'tool_contract_violation');
  t.notMatch(body.error.message, /re-ask/);
  const stream = sseData(await (await ask('instant', true)).text());
  t.equal(JSON.parse(stream.at(-1) ?? '{}').error?.code, 'tool_contract_violation');
  t.equal(sentFor('m-instant').length, 2, 'one call each, no re-ask');
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
  t.equal(response.status, 200);
  t.match(response.headers.get('x-toolgate-warnings'), /(^|,)contract_invalid_arguments=1(,|$)/);
  t.equal(sentFor('m-hurried').length, 1, 'no re-ask');
});

t.test('enabled false: answers are not checked', async (t) => {
  const response = await ask('off', false);
  t.equal(response.status, 200);
  t.equal(sentFor('m-off').length, 1);
});
