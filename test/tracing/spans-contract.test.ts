import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { startGateway } from '../helpers/gateway.js';
import { isReask, TOOLS } from '../helpers/contract-rows.js';
import { SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

// A re-ask after a tool-contract violation is an upstream attempt like any other: its own CLIENT
// span, marked as the re-ask it is; the SERVER span names the violations. The inspector record
// shows each answer that broke the contract and what came of it.

const receiver = await startOtlpReceiver();
const up = await startOpenAIEmulator({
  apiKey: 'k',
  script: (body) => (isReask(body) ? { toolCalls: [{ name: 'get_time', arguments: { tz: 'UTC' } }] } : { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] }),
});
const gw = await startGateway({
  yaml: `
server:
  host: 127.0.0.1
  port: 0
tracing:
  enabled: true
  endpoint: ${receiver.url}
  protocol: http/json
inspector:
  enabled: true
providers:
  up:
    type: openai-compatible
    baseUrl: ${up.url}
    apiKey: k
`,
});
t.teardown(async () => {
  await Promise.all([up.close(), receiver.close()]);
});

const traceId = '4bf92f3577b34da6a3ce929d0e0ec0de';
const response = await fetch(`${gw.url}/v1/chat/completions`, {
  method: 'POST',
  headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba90201-01` },
  body: JSON.stringify({ model: 'up/m', messages: [{ role: 'user', content: 'What time is it?' }], tools: TOOLS, tool_choice: { type: 'function', function: { name: 'get_time' } } }),
});
const requestId = response.headers.get('x-request-id');
const status = response.status;
const records: any = await (await fetch(`${gw.url}/v1/toolgate/requests/${requestId}`)).json();
await gw.close(); // flushes the span batch

t.test('a CLIENT span per attempt, the re-ask marked; the SERVER span names the violation', async (t) => {
  t.equal(status, 200);
  const spans = receiver.spans.filter((span) => span.traceId === traceId);
  const clients = spans.filter((span) => span.kind === SPAN_KIND.client);
  t.equal(clients.length, 2, 'the answer and its re-ask');
  t.same(clients.map((span) => span.attributes['toolgate.contract.reask']).sort(), [1, undefined].sort());
  const server = spans.find((span) => span.kind === SPAN_KIND.server);
  t.same(server?.attributes['toolgate.contract.violations'], ['wrong_tool']);
  t.equal(server?.attributes['toolgate.contract.reasks'], 1);
  t.equal(server?.attributes['toolgate.llm_calls'], 2);
});

t.test('the inspector shows each checked answer and what it broke', async (t) => {
  const record = records.record ?? records;
  t.equal(record.attemptsDetail.length, 2, 'both upstream calls are attempts');
  t.same(
    record.contract.map((note: any) => ({ reask: note.reask, outcome: note.outcome, kinds: note.violations.map((v: any) => v.kind) })),
    [
      { reask: 0, outcome: 'reask', kinds: ['wrong_tool'] },
      { reask: 1, outcome: 'complied', kinds: [] },
    ],
  );
  t.match(record.contract[0].violations[0].message, /allows only "get_time", but the answer called "get_weather"/);
});
