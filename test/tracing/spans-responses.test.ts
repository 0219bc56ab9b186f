import t from 'tap';
import { startGateway } from '../helpers/gateway.js';
import { startRawUpstream } from '../helpers/raw-upstream.js';
import { SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

// The native Responses path (an `openai` upstream's POST /responses) goes through the same
// upstream caller: a CLIENT span per attempt with the Responses object's facts, JSON and SSE.

const response = {
  id: 'resp_42',
  object: 'response',
  created_at: 1,
  status: 'completed',
  model: 'gpt-x-2026',
  output: [{ id: 'msg_1', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'hello', annotations: [] }] }],
  usage: { input_tokens: 3, output_tokens: 1, total_tokens: 4 },
};
const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
const traceparents: string[] = [];

const receiver = await startOtlpReceiver();
const upstream = await startRawUpstream((req, res, raw) => {
  traceparents.push(String(req.headers.traceparent));
  if (JSON.parse(raw).stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    return void res.end(JSON.stringify(response));
  }
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(sse('response.created', { type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', output: [], usage: null } }));
  res.end(sse('response.completed', { type: 'response.completed', sequence_number: 1, response }));
});
const gw = await startGateway({
  yaml: `server: {host: 127.0.0.1, port: 0}
tracing: {enabled: true, endpoint: '${receiver.url}', protocol: http/json}
providers:
  oa: {type: openai, baseUrl: '${upstream.baseURL}', apiKey: sk-native-SECRET-1234}
models:
  smart: {provider: oa, model: gpt-main}
`,
});
t.teardown(async () => {
  await Promise.all([receiver.close(), upstream.close()]);
});

const ids: Record<string, string> = {};
const statuses: Record<string, number> = {};
for (const stream of [false, true]) {
  const traceId = `7bf92f3577b34da6a3ce929d0e0e000${stream ? 2 : 1}`;
  ids[String(stream)] = traceId;
  const answer = await fetch(`${gw.url}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ model: 'smart', input: 'hi', stream }),
  });
  statuses[String(stream)] = answer.status;
  await answer.text();
}
await gw.close();

for (const stream of [false, true]) {
  t.test(`native Responses (${stream ? 'SSE' : 'JSON'}): the CLIENT span has the response's facts and its traceparent went upstream`, async (t) => {
    const traceId = ids[String(stream)];
    t.equal(statuses[String(stream)], 200);
    const spans = receiver.spans.filter((span) => span.traceId === traceId);
    const server = spans.find((span) => span.kind === SPAN_KIND.server);
    const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
    t.equal(server?.name, 'POST /v1/responses');
    t.equal(clients.length, 1);
    t.equal(clients[0].name, 'chat gpt-main');
    t.equal(clients[0].parentSpanId, server?.spanId);
    t.match(clients[0].attributes, {
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-main',
      'gen_ai.response.id': 'resp_42',
      'gen_ai.response.model': 'gpt-x-2026',
      'gen_ai.response.finish_reasons': ['completed'],
      'gen_ai.usage.input_tokens': 3,
      'gen_ai.usage.output_tokens': 1,
    });
    t.ok(traceparents.includes(`00-${traceId}-${clients[0].spanId}-01`));
  });
}
