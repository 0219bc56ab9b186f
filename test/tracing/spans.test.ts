import t from 'tap';
import { startGeminiEmulator } from '../emulators/gemini-server.js';
import { startOpenAIEmulator, type Reply } from '../emulators/openai-server.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// Issue 19 §2: the gateway's spans, exported over OTLP http/json to an in-process receiver. One
// gateway with four upstreams: a flaky one (503, then an answer: a retry chain), one always down (a
// fallback to a healthy one), a healthy one, and Gemini. Every request continues a client trace.

const PROVIDER_UP = 'sk-up-SECRET-0123456789abcdef';
const PROVIDER_DOWN = 'sk-down-SECRET-0123456789abcdef';
const GATEWAY_KEY = 'gk-SECRET-gateway-key-0001';
const GEMINI_KEY = 'AIza-SECRET-gemini-key-0001';

const receiver = await startOtlpReceiver();
const up = await startOpenAIEmulator({ apiKey: PROVIDER_UP });
const flaky = await startOpenAIEmulator({ apiKey: PROVIDER_UP });
const down = await startOpenAIEmulator({ apiKey: PROVIDER_DOWN });
const gemini = await startGeminiEmulator({ apiKey: GEMINI_KEY });
const unavailable = (key: string): Reply => ({ error: { status: 503, body: { error: { message: `overloaded (key ${key})`, type: 'server_error', param: null, code: null } } } });
flaky.setScript((_body, callIndex) => (callIndex === 0 ? unavailable(PROVIDER_UP) : { text: 'Sunny in Paris.' }));
down.setScript(() => unavailable(PROVIDER_DOWN));

const noRetry = '    retry:\n      maxAttempts: 1\n';
const yaml = `
server:
  host: 127.0.0.1
  port: 0
tracing:
  enabled: true
  endpoint: ${receiver.url}
  protocol: http/json
  serviceName: toolgate-under-test
auth:
  keys:
    - key: ${GATEWAY_KEY}
      name: team-a
providers:
  up:
    type: openai-compatible
    baseUrl: ${up.url}
    apiKey: ${PROVIDER_UP}
${noRetry}  flaky:
    type: openai-compatible
    baseUrl: ${flaky.url}
    apiKey: ${PROVIDER_UP}
    retry:
      maxAttempts: 2
      baseDelayMs: 0
  down:
    type: openai-compatible
    baseUrl: ${down.url}
    apiKey: ${PROVIDER_DOWN}
${noRetry}  gem:
    type: gemini
    baseUrl: ${gemini.baseUrl}
    apiKey: ${GEMINI_KEY}
models:
  healthy:
    provider: up
    model: gpt-4o-mini
  flaky:
    provider: flaky
    model: gpt-4o
  primary:
    provider: down
    model: gpt-4.1
    fallbacks: [healthy]
  gem:
    provider: gem
    model: gemini-2.5-flash
`;

const gw: TestGateway = await startGateway({ yaml });
t.teardown(async () => {
  await Promise.all([up.close(), flaky.close(), down.close(), gemini.close(), receiver.close()]);
});

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const traceIds = new Map<string, { traceId: string; parent: string }>();
let counter = 0;

/** One request continuing a fresh client trace; returns the trace id and the client's span id. */
async function send(body: Record<string, unknown>): Promise<{ status: number; text: string; traceId: string; parent: string; requestId: string }> {
  counter++;
  const traceId = `${'4bf92f3577b34da6a3ce929d0e0e'}${String(counter).padStart(4, '0')}`;
  const parent = `00f067aa0ba902${String(counter).padStart(2, '0')}`;
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}`, traceparent: `00-${traceId}-${parent}-01`, tracestate: 'agent=1' },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  const requestId = response.headers.get('x-request-id') ?? '';
  traceIds.set(requestId, { traceId, parent });
  return { status: response.status, text, traceId, parent, requestId };
}

const results = {
  json: await send({ model: 'healthy', messages: [{ role: 'user', content: 'weather in Paris?' }], tools: TOOLS, temperature: 0.3, max_tokens: 256 }),
  stream: await send({ model: 'healthy', stream: true, messages: [{ role: 'user', content: 'weather in Rome?' }], tools: TOOLS }),
  retried: await send({ model: 'flaky', messages: [{ role: 'user', content: 'weather in Oslo?' }] }),
  fellBack: await send({ model: 'primary', messages: [{ role: 'user', content: 'weather in Lima?' }], user: GATEWAY_KEY }),
  repaired: await send({
    model: 'healthy',
    messages: [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: { city: 'Paris' } } }] },
      { role: 'user', content: 'and now?' },
    ],
    tools: TOOLS,
  }),
  gemini: await send({ model: 'gem', messages: [{ role: 'user', content: 'weather in Nice?' }], tools: TOOLS }),
  // 200 calls never answered: 200 repairs, more than a span keeps events for.
  manyRepairs: await send({
    model: 'healthy',
    messages: [
      { role: 'user', content: 'weather everywhere?' },
      ...Array.from({ length: 200 }, (_, i) => ({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] })),
      { role: 'user', content: 'so?' },
    ],
    tools: TOOLS,
  }),
};
await gw.close(); // flushes the batch processor

function spansOf(traceId: string): { server: ReceivedSpan; clients: ReceivedSpan[] } {
  const spans = receiver.spans.filter((span) => span.traceId === traceId);
  const servers = spans.filter((span) => span.kind === SPAN_KIND.server);
  if (servers.length !== 1) throw new Error(`expected one SERVER span in trace ${traceId}, got ${servers.length}`);
  const clients = spans.filter((span) => span.kind === SPAN_KIND.client).sort((a, b) => Number(a.attributes['toolgate.attempt']) - Number(b.attributes['toolgate.attempt']));
  return { server: servers[0], clients };
}

t.test('every request answered', async (t) => {
  for (const [name, result] of Object.entries(results)) t.equal(result.status, 200, `${name}: ${result.text.slice(0, 200)}`);
});

t.test('a SERVER span per request, child of the client span its traceparent named', async (t) => {
  const { server } = spansOf(results.json.traceId);
  t.equal(server.name, 'POST /v1/chat/completions');
  t.equal(server.parentSpanId, results.json.parent, 'the agent span is the parent');
  t.match(server.attributes, {
    'http.request.method': 'POST',
    'http.route': '/v1/chat/completions',
    'url.path': '/v1/chat/completions',
    'http.response.status_code': 200,
    'toolgate.request.id': results.json.requestId,
    'toolgate.model': 'healthy',
    'toolgate.provider': 'up',
    'toolgate.stream': false,
    'toolgate.tool_call.source': 'native',
    'toolgate.llm_calls': 1,
    'toolgate.fallback': false,
    'toolgate.key.name': 'team-a',
  });
  t.equal(server.resource['service.name'], 'toolgate-under-test');
});

t.test('a CLIENT span per attempt, named {operation} {model}, with the GenAI attributes', async (t) => {
  const { server, clients } = spansOf(results.json.traceId);
  t.equal(clients.length, 1);
  const [client] = clients;
  t.equal(client.name, 'chat gpt-4o-mini');
  t.equal(client.parentSpanId, server.spanId);
  const answer = JSON.parse(results.json.text);
  t.match(client.attributes, {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'up',
    'gen_ai.request.model': 'gpt-4o-mini',
    'gen_ai.response.model': 'gpt-4o-mini',
    'gen_ai.response.id': answer.id,
    'gen_ai.response.finish_reasons': ['tool_calls'],
    'gen_ai.usage.input_tokens': answer.usage.prompt_tokens,
    'gen_ai.usage.output_tokens': answer.usage.completion_tokens,
    'gen_ai.request.temperature': 0.3,
    'gen_ai.request.max_tokens': 256,
    'gen_ai.request.stream': false,
    'server.address': '127.0.0.1',
    'server.port': Number(new URL(up.url).port),
    'toolgate.attempt': 1,
    'toolgate.fallback': false,
  });
  t.equal(client.attributes['error.type'], undefined);
  t.equal(client.attributes['gen_ai.input.messages'], undefined, 'no content without the opt-in');
  t.equal(client.attributes['gen_ai.output.messages'], undefined);
});

t.test("the upstream gets the CLIENT span's traceparent, and the client's tracestate", async (t) => {
  const { clients } = spansOf(results.json.traceId);
  const sent = up.requests.find((request) => String(request.headers.traceparent).includes(results.json.traceId));
  t.ok(sent, 'the upstream request carries the trace');
  t.equal(sent?.headers.traceparent, `00-${results.json.traceId}-${clients[0].spanId}-01`);
  t.equal(sent?.headers.tracestate, 'agent=1');
});

t.test('a stream: the CLIENT span ends with the upstream stream and carries what only its end tells', async (t) => {
  const { server, clients } = spansOf(results.stream.traceId);
  t.equal(server.attributes['toolgate.stream'], true);
  t.equal(clients.length, 1);
  const events = results.stream.text.split('\n').filter((line) => line.startsWith('data: {')).map((line) => JSON.parse(line.slice(6)));
  t.match(clients[0].attributes, { 'gen_ai.response.id': events[0].id, 'gen_ai.response.finish_reasons': ['tool_calls'], 'gen_ai.usage.output_tokens': Number });
});

t.test('a retry chain: one CLIENT span per attempt, the failed one with error.type from the failure table', async (t) => {
  const { server, clients } = spansOf(results.retried.traceId);
  t.equal(clients.length, 2, 'two attempts on the flaky upstream');
  const [first, second] = clients;
  t.match(first.attributes, { 'toolgate.attempt': 1, 'error.type': 'upstream_5xx', 'toolgate.failure': 'upstream_5xx', 'http.response.status_code': 503 });
  t.equal(first.status.code, 2, 'status ERROR');
  t.match(second.attributes, { 'toolgate.attempt': 2, 'gen_ai.response.finish_reasons': ['stop'] });
  t.equal(second.attributes['error.type'], undefined);
  t.equal(server.attributes['toolgate.llm_calls'], 2);
  const sent = flaky.requests.filter((request) => String(request.headers.traceparent).includes(results.retried.traceId)).map((request) => request.headers.traceparent);
  t.same(sent, clients.map((client) => `00-${results.retried.traceId}-${client.spanId}-01`), 'each attempt sent its own span id');
});

t.test('a fallback: the failed target and the fallback each get a CLIENT span; the SERVER span says a fallback answered', async (t) => {
  const { server, clients } = spansOf(results.fellBack.traceId);
  t.equal(clients.length, 2);
  const failed = clients.find((client) => client.attributes['toolgate.provider'] === 'down');
  const served = clients.find((client) => client.attributes['toolgate.provider'] === 'up');
  t.match(failed?.attributes, { 'gen_ai.request.model': 'gpt-4.1', 'error.type': 'upstream_5xx', 'toolgate.fallback': false });
  t.match(served?.attributes, { 'gen_ai.request.model': 'gpt-4o-mini', 'toolgate.fallback': true, 'toolgate.model': 'healthy' });
  t.equal(served?.attributes['error.type'], undefined);
  t.equal(server.attributes['toolgate.fallback'], true);
  t.equal(server.attributes['toolgate.provider'], 'up');
});

t.test('repairs: kinds and count on the SERVER span, one event per repair', async (t) => {
  const { server } = spansOf(results.repaired.traceId);
  const response = results.repaired;
  t.ok(response.status === 200);
  const count = Number(server.attributes['toolgate.repair.count']);
  t.ok(count >= 2, `${count} repairs`);
  const kinds = server.attributes['toolgate.repair.kinds'] as string[];
  t.ok(kinds.includes('missing_tool_result'), kinds.join(', '));
  const events = server.events.filter((event) => event.name === 'toolgate.repair');
  t.equal(events.length, count, 'one event per repair');
  const missing = events.find((event) => event.attributes['toolgate.repair.kind'] === 'missing_tool_result');
  t.equal(missing?.attributes['toolgate.repair.message_index'], 1, 'the assistant message whose call had no result');
  t.match(missing?.attributes['toolgate.repair.detail'], /call_1/);
});

t.test('more repairs than a span keeps events for: the count stays exact, events stop at 128', async (t) => {
  const { server } = spansOf(results.manyRepairs.traceId);
  t.equal(server.attributes['toolgate.repair.count'], 200);
  t.equal(server.events.filter((event) => event.name === 'toolgate.repair').length, 128);
});

t.test('Gemini: generate_content span, gcp.gemini provider, traceparent sent upstream', async (t) => {
  const { clients } = spansOf(results.gemini.traceId);
  t.equal(clients.length, 1);
  t.equal(clients[0].name, 'generate_content gemini-2.5-flash');
  t.match(clients[0].attributes, { 'gen_ai.operation.name': 'generate_content', 'gen_ai.provider.name': 'gcp.gemini', 'gen_ai.request.model': 'gemini-2.5-flash' });
  const sent = gemini.requests.find((request) => String(request.headers.traceparent).includes(results.gemini.traceId));
  t.equal(sent?.headers.traceparent, `00-${results.gemini.traceId}-${clients[0].spanId}-01`);
});

t.test('the task the client named is on the SERVER span, its secret scrubbed', async (t) => {
  const { server } = spansOf(results.fellBack.traceId);
  t.equal(server.attributes['toolgate.task.id'], 'user:[REDACTED]');
});

t.test('no secret in any exported span', async (t) => {
  t.ok(receiver.bodies.length > 0 && receiver.spans.length >= 14, `${receiver.spans.length} spans received`);
  const exported = receiver.bodies.join('\n');
  for (const secret of [PROVIDER_UP, PROVIDER_DOWN, GATEWAY_KEY, GEMINI_KEY]) t.notOk(exported.includes(secret), `${secret.slice(0, 8)}… not exported`);
  // The down upstream quoted its key in its error: the span status carries the scrubbed message.
  const failed = spansOf(results.fellBack.traceId).clients.find((client) => client.attributes['error.type']);
  t.match(failed?.status.message, /\[REDACTED\]/);
});

t.test("the request's log lines carry its trace id", async (t) => {
  const line = gw.logs.map((text) => JSON.parse(text)).find((entry) => entry.msg === 'request' && entry.reqId === results.json.requestId);
  const { server } = spansOf(results.json.traceId);
  t.match(line, { trace_id: results.json.traceId, span_id: server.spanId, trace_flags: '01' });
});
