import t, { type Test } from 'tap';
import { configFor, startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIEmulator, type OpenAIEmulator } from '../emulators/openai-server.js';

// GET /v1/toolgate/requests and /{id} over real requests through the gateway: every filter, cursor
// paging, the x-request-id header (JSON and SSE), the attempts chain of a fallback, and the
// OpenAI-shaped 400 / 404.

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
const BROKEN_HISTORY = [
  { role: 'user', content: 'Weather in Paris?' },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
  { role: 'tool', content: '{"temp":21}' },
];

interface Summary {
  id: string;
  model?: string;
  provider?: string;
  outcome: string;
  repairs: number;
  fallback: boolean;
  textCalls?: string;
  stream: boolean;
}
interface Page {
  object: string;
  data: Summary[];
  has_more: boolean;
  next_cursor: string | null;
}

async function setup(t: Test): Promise<{ gw: TestGateway; upstream: OpenAIEmulator; ids: Record<string, string> }> {
  const upstream = await startOpenAIEmulator({ script: () => ({ error: { status: 503, body: { error: { message: 'overloaded', type: 'server_error', code: null, param: null } } } }) });
  const gw = await startGateway({
    yaml: configFor(
      { flaky: { baseUrl: upstream.url, apiKey: 'sk-flaky-0000', extra: '    retry: {maxAttempts: 2, baseDelayMs: 1, maxDelayMs: 2}\n' } },
      'models:\n  unstable:\n    provider: flaky\n    model: m1\n    fallbacks: [simulator/weather]\ninspector:\n  enabled: true\n',
    ),
    logLevel: 'warn',
  });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const ids: Record<string, string> = {};
  const send = async (name: string, body: Record<string, unknown>): Promise<void> => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    await response.text();
    ids[name] = response.headers.get('x-request-id') ?? '';
  };
  await send('repaired', { model: 'simulator/weather', tools: TOOLS, messages: BROKEN_HISTORY });
  await send('text', { model: 'simulator/weather:hermes', tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Tokyo?' }] });
  await send('textStream', { model: 'simulator/weather:hermes', stream: true, tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Rome?' }] });
  await send('fallback', { model: 'unstable', tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
  await send('unknown', { model: 'nope/none', messages: [{ role: 'user', content: 'hi' }] });
  await send('plain', { model: 'simulator/weather', messages: [{ role: 'user', content: 'hello' }] });
  return { gw, upstream, ids };
}

const get = async (gw: TestGateway, path: string): Promise<{ status: number; body: any }> => {
  const response = await fetch(`${gw.url}${path}`);
  return { status: response.status, body: await response.json() };
};

t.test('filters select the requests that did each thing', async (t) => {
  const { gw, ids } = await setup(t);
  const idsOf = async (query: string): Promise<string[]> => {
    const { status, body } = await get(gw, `/v1/toolgate/requests${query}`);
    t.equal(status, 200, query);
    return (body as Page).data.map((item) => item.id).sort();
  };
  t.same(await idsOf(''), Object.values(ids).sort(), 'every request, each under the id its x-request-id header carried (SSE included)');
  t.ok(Object.values(ids).every((id) => /^req_[0-9a-f]{32}$/.test(id)), 'every response had an x-request-id');
  t.same(await idsOf('?has-repairs=true'), [ids.repaired]);
  t.same(await idsOf('?text-calls=true'), [ids.text, ids.textStream].sort());
  t.same(await idsOf('?has-fallback=true'), [ids.fallback]);
  t.same(await idsOf('?outcome=client_error'), [ids.unknown]);
  t.same(await idsOf('?model=simulator/weather:hermes'), [ids.text, ids.textStream].sort());
  t.same(await idsOf('?model=unstable&outcome=success'), [ids.fallback], 'a fallback that answered is a success');
  t.same(await idsOf('?provider=simulator&text-calls=false&has-repairs=false'), [ids.fallback, ids.plain].sort(), 'the fallback was served by the simulator');
  t.same(await idsOf(`?since=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`), []);
  t.same((await idsOf(`?since=${Date.now() - 60_000}`)).length, 6);

  const fallback = (await get(gw, `/v1/toolgate/requests/${ids.fallback}`)).body;
  t.same(
    fallback.attemptsDetail.map((a: { provider: string; attempt: number; outcome: string; status?: number }) => [a.provider, a.attempt, a.outcome, a.status]),
    [['flaky', 1, 'retried', 503], ['flaky', 2, 'fallback', 503], ['simulator', 1, 'success', undefined]],
    'each attempt of the retry / fallback chain with its status',
  );
  t.equal(fallback.provider, 'simulator');
  t.equal(fallback.llmCalls, 3);

  const repaired = (await get(gw, `/v1/toolgate/requests/${ids.repaired}`)).body;
  t.match(repaired.findings, [{ kind: 'missing_tool_call_id', index: 2, target: 'messages' }]);
  t.same(repaired.diffs[0].hunks[0].before[0].tool_call_id, undefined, 'before: the tool message without its id');
  t.equal(repaired.diffs[0].hunks[0].after[0].tool_call_id, 'call_1', 'after: the id the repair gave it');

  for (const name of ['text', 'textStream']) {
    const text = (await get(gw, `/v1/toolgate/requests/${ids[name]}`)).body;
    t.equal(text.textCallsDetail.format, 'hermes', `${name}: format`);
    t.same(text.textCallsDetail.calls.map((c: { name: string; arguments: { keys: string[] } }) => [c.name, c.arguments.keys]), [['get_weather', ['city']]], `${name}: the call`);
    t.ok(text.textCallsDetail.rawLength > 0, `${name}: the raw span's length`);
  }
});

t.test('cursor paging walks every record once, newest first', async (t) => {
  const { gw, ids } = await setup(t);
  const seen: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const { status, body } = await get(gw, `/v1/toolgate/requests?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
    t.equal(status, 200);
    const page = body as Page;
    t.ok(page.data.length <= 4);
    seen.push(...page.data.map((item) => item.id));
    cursor = page.next_cursor;
    t.equal(page.has_more, cursor !== null);
    pages++;
  } while (cursor && pages < 10);
  t.equal(pages, 2);
  t.same(seen, [ids.plain, ids.unknown, ids.fallback, ids.textStream, ids.text, ids.repaired], 'newest first, no repeats');
  const filtered = (await get(gw, '/v1/toolgate/requests?limit=1&text-calls=true')).body as Page;
  const second = (await get(gw, `/v1/toolgate/requests?limit=1&text-calls=true&cursor=${filtered.next_cursor}`)).body as Page;
  t.same([...filtered.data, ...second.data].map((item) => item.id), [ids.textStream, ids.text], 'filters hold across pages');
  t.equal(second.has_more, false);
});

t.test('bad filters are OpenAI-shaped 400s; an unknown id is a 404', async (t) => {
  const { gw } = await setup(t);
  for (const [query, param] of [
    ['outcome=maybe', 'outcome'],
    ['has-repairs=yes', 'has-repairs'],
    ['since=yesterday', 'since'],
    ['limit=0', 'limit'],
    ['limit=5000', 'limit'],
    ['cursor=abc', 'cursor'],
    ['colour=red', 'colour'],
    ['model=a&model=b', 'model'],
  ]) {
    const { status, body } = await get(gw, `/v1/toolgate/requests?${query}`);
    t.equal(status, 400, query);
    t.equal(body.error.param, param, query);
    t.equal(body.error.type, 'invalid_request_error');
  }
  const missing = await get(gw, '/v1/toolgate/requests/req_doesnotexist');
  t.equal(missing.status, 404);
  t.same(missing.body.error.code, 'request_not_found');
});

t.test('off by default: no routes, no page', async (t) => {
  const gw = await startGateway({ yaml: configFor({}), logLevel: 'warn' });
  t.teardown(() => gw.close());
  t.equal((await fetch(`${gw.url}/v1/toolgate/requests`)).status, 404);
  t.equal((await fetch(`${gw.url}/inspector`)).status, 404);
  // The id the inspector files a request under is on every response, SSE (whose head the gateway writes itself) included.
  const sse = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'simulator/weather', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
  await sse.text();
  t.match(sse.headers.get('content-type'), /text\/event-stream/);
  t.match(sse.headers.get('x-request-id'), /^req_[0-9a-f]{32}$/, 'SSE responses carry x-request-id');
  const own = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'x-request-id': 'my-trace.42' }, body: JSON.stringify({ model: 'simulator/weather', stream: true, messages: [{ role: 'user', content: 'hi' }] }) });
  await own.text();
  t.equal(own.headers.get('x-request-id'), 'my-trace.42', "a client's own id is kept");
});

t.test('a Responses request: its input repairs with their before/after, then the chat path it was bridged to', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n'), logLevel: 'warn' });
  t.teardown(() => gw.close());
  const response = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    body: JSON.stringify({
      model: 'simulator/weather',
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_p', name: 'get_weather', arguments: { city: 'Paris' } },
        { type: 'function_call_output', call_id: 'call_p', output: { temperature_c: 21 } },
      ],
    }),
  });
  t.equal(response.status, 200);
  await response.text();
  const id = response.headers.get('x-request-id') ?? '';
  const record = (await get(gw, `/v1/toolgate/requests/${id}`)).body;
  t.equal(record.endpoint, 'responses');
  t.equal(record.model, 'simulator/weather');
  // The {role, content} item is OpenAI's easy input message: typed without a finding.
  t.same(record.findings.filter((f: { target: string }) => f.target === 'input').map((f: { kind: string }) => f.kind), ['arguments_stringified', 'tool_output_stringified']);
  const input = record.diffs.find((d: { target: string }) => d.target === 'input');
  t.match(input.hunks[0].before[1], { type: 'function_call', call_id: 'call_p', arguments: { city: /^‹5 chars #[0-9a-f]{8}›$/ } }, 'before: arguments as an object');
  t.match(input.hunks[0].after[1], { type: 'function_call', call_id: 'call_p', arguments: { keys: ['city'], text: /^‹16 chars #/ } }, 'after: a JSON string with the same keys');
  t.match(input.hunks[0].before[2].output, { temperature_c: /^‹number #[0-9a-f]{8}›$/ }, 'numbers are content too: hashed');
  t.match(input.hunks[0].after[2].output, /^‹20 chars #/);
  t.same((await get(gw, '/v1/toolgate/requests?model=simulator/weather')).body.data.map((r: { id: string }) => r.id), [id]);
});

t.test("cost from the model's price, and the task's LLM-call count across requests", async (t) => {
  const gw = await startGateway({
    yaml: configFor({}, 'models:\n  priced:\n    provider: simulator\n    model: weather\n    pricing: {inputPerMTok: 2000000, outputPerMTok: 4000000}\ninspector:\n  enabled: true\n'),
    logLevel: 'warn',
  });
  t.teardown(() => gw.close());
  const records = [];
  for (let turn = 0; turn < 3; turn++) {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'x-toolgate-task-id': 'task-42' },
      body: JSON.stringify({ model: 'priced', tools: TOOLS, messages: [{ role: 'user', content: 'Weather in Lima?' }] }),
    });
    const body = (await response.json()) as { usage: { prompt_tokens: number; completion_tokens: number } };
    const record = (await get(gw, `/v1/toolgate/requests/${response.headers.get('x-request-id')}`)).body;
    t.equal(record.costUsd, body.usage.prompt_tokens * 2 + body.usage.completion_tokens * 4, `turn ${turn}: cost = tokens × price`);
    records.push(record);
  }
  t.same(records.map((r) => r.taskLlmCalls), [1, 2, 3], "the task's LLM calls so far");
  t.ok(records.every((r) => typeof r.ttfbMs === 'number' && r.ttfbMs <= r.latencyMs), 'time to first token within the total');
});
