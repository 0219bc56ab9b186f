import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startOtlpGrpcReceiver } from './otlp-grpc-receiver.js';
import { SPAN_KIND, startOtlpReceiver, type ReceivedSpan } from './otlp-receiver.js';

// Tracing configured by the standard OTEL_* variables alone (no `tracing` section in the config
// file), message content only with OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true, and a
// collector that is down never holding the gateway's close. Each gateway reads process.env when it
// starts, so the variables are set before each one.

const KEY = 'sk-content-SECRET-0123456789';
const receiver = await startOtlpReceiver();
const grpcReceiver = await startOtlpGrpcReceiver();
const upstream = await startOpenAIEmulator({ apiKey: KEY });
t.teardown(async () => {
  await Promise.all([receiver.close(), grpcReceiver.close(), upstream.close()]);
});

const yaml = configFor({ up: { baseUrl: upstream.url, apiKey: KEY } }, 'models:\n  m:\n    provider: up\n    model: gpt-4o-mini\n');
const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];

function setEnv(values: Record<string, string | undefined>): void {
  for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];
  for (const [name, value] of Object.entries(values)) if (value !== undefined) process.env[name] = value;
}

let traces = 0;

/** One request through a fresh gateway, continuing a fresh client trace; the gateway is closed (its spans flushed). */
async function tracedRequest(body: Record<string, unknown>): Promise<{ traceId: string; response: Response; gw: Awaited<ReturnType<typeof startGateway>> }> {
  const traceId = `5bf92f3577b34da6a3ce929d0e0e${String(++traces).padStart(4, '0')}`;
  const gw = await startGateway({ yaml });
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify(body),
  });
  await response.text();
  await gw.close();
  return { traceId, response, gw };
}

/** The CLIENT spans of one traced request (SSE answers carry no x-request-id: found by trace id). */
async function run(stream: boolean, question: string): Promise<{ clients: ReceivedSpan[] }> {
  const { traceId } = await tracedRequest({ model: 'm', stream, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: question }], tools: TOOLS });
  return { clients: receiver.spans.filter((span) => span.kind === SPAN_KIND.client && span.traceId === traceId) };
}

t.test('the OTEL_* variables alone turn tracing on (http/json, service name)', async (t) => {
  setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SERVICE_NAME: 'from-env' });
  const { clients } = await run(false, 'weather in Paris?');
  t.equal(clients.length, 1, 'the request was traced');
  t.equal(clients[0].resource['service.name'], 'from-env');
  t.equal(receiver.headers.at(-1)?.['content-type'], 'application/json');
  t.equal(clients[0].attributes['gen_ai.input.messages'], undefined, 'no content by default');
  t.equal(clients[0].attributes['gen_ai.output.messages'], undefined);
});

t.test('http/protobuf is the default protocol', async (t) => {
  setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
  const before = receiver.headers.length;
  await run(false, 'weather in Nice?');
  const posted = receiver.headers.slice(before);
  t.ok(posted.length > 0, 'spans posted');
  t.ok(posted.every((headers) => headers['content-type'] === 'application/x-protobuf'));
  t.ok(receiver.bodies.at(-1)?.includes('chat gpt-4o-mini'), 'the CLIENT span is in the protobuf body');
});

t.test('OTLP/gRPC: spans go to a gRPC collector, OTEL_EXPORTER_OTLP_HEADERS as metadata, no key in them', async (t) => {
  setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: grpcReceiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc', OTEL_EXPORTER_OTLP_HEADERS: 'x-tenant=acme' });
  const { traceId, response, gw } = await tracedRequest({ model: 'm', messages: [{ role: 'user', content: 'weather in Bern?' }], tools: TOOLS });
  t.equal(response.status, 200);
  const exported = grpcReceiver.bodies.join('');
  t.ok(exported.includes(Buffer.from(traceId, 'hex').toString('latin1')), 'the request continues the client trace');
  t.ok(exported.includes('chat gpt-4o-mini'), 'the CLIENT span is exported');
  t.notOk(exported.includes(KEY), 'no upstream key in the spans');
  t.ok(grpcReceiver.metadata.length > 0 && grpcReceiver.metadata.every((entry) => entry['x-tenant'] === 'acme'), 'the headers variable arrives as gRPC metadata');
  t.ok(gw.logs.some((line) => line.includes('tracing on') && line.includes('grpc')), 'the start line names the protocol');
});

t.test('OTEL_SDK_DISABLED=true wins over an endpoint', async (t) => {
  setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_SDK_DISABLED: 'true' });
  const before = receiver.spans.length;
  const { clients } = await run(false, 'weather in Rome?');
  t.equal(clients.length, 0);
  t.equal(receiver.spans.length, before, 'nothing exported');
});

for (const stream of [false, true]) {
  t.test(`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and answers on the CLIENT span (${stream ? 'stream' : 'json'})`, async (t) => {
    setEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${receiver.url}/v1/traces`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
    // The client pasted the provider key into its prompt: captured content is scrubbed too.
    const { clients } = await run(stream, `weather in Oslo? my key is ${KEY}`);
    t.equal(clients.length, 1);
    const input = JSON.parse(String(clients[0].attributes['gen_ai.input.messages']));
    t.same(input, [
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: 'weather in Oslo? my key is [REDACTED]' }] },
    ]);
    const output = JSON.parse(String(clients[0].attributes['gen_ai.output.messages']));
    t.match(output, [{ role: 'assistant', finish_reason: 'tool_calls', parts: [{ type: 'tool_call', name: 'get_weather', arguments: /Oslo/ }] }]);
  });
}

t.test('captured input is the history as toolgate sent it: after its repairs', async (t) => {
  setEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' });
  const { traceId, response } = await tracedRequest({
    model: 'm',
    messages: [
      { role: 'user', content: 'weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'user', content: 'and now?' },
    ],
    tools: TOOLS,
  });
  t.match(response.headers.get('x-toolgate-repairs'), /missing_tool_result=1/);
  const client = receiver.spans.find((span) => span.kind === SPAN_KIND.client && span.traceId === traceId);
  const input = JSON.parse(String(client?.attributes['gen_ai.input.messages'])) as Array<{ role: string; parts: Array<{ type: string; id?: string }> }>;
  t.same(input.map((message) => message.role), ['user', 'assistant', 'tool', 'user'], 'the inserted tool result is there');
  t.match(input[2].parts[0], { type: 'tool_call_response', id: 'call_1' });
});

for (const [protocol, endpoint] of [
  ['http/json', 'http://127.0.0.1:9/v1/traces'],
  ['grpc', 'http://127.0.0.1:9'],
] as const) {
  t.test(`a collector that is down (${protocol}): spans are dropped, the gateway still closes promptly`, async (t) => {
    setEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: protocol });
    const gw = await startGateway({ yaml });
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'weather in Lima?' }] }),
    });
    t.equal(response.status, 200);
    await t.resolves(gw.close(), 'close resolves');
    t.ok(gw.logs.some((line) => line.includes('tracing:')), 'the lost spans are logged as a warning');
  });
}
