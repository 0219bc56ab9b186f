import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { SPAN_KIND, startOtlpReceiver } from './otlp-receiver.js';

// A client that leaves mid-stream: the upstream stream is cut, its CLIENT span ends as
// client_aborted (not an upstream failure), and the SERVER span says the client went away.

process.env.OTEL_BSP_SCHEDULE_DELAY = '50';
const receiver = await startOtlpReceiver();
const upstream = await startOpenAIEmulator({ chunkDelayMs: 20, wordsPerChunk: 1 });
upstream.setScript(() => ({ text: Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ') }));
const gw = await startGateway({
  yaml: configFor({ up: { baseUrl: upstream.url, apiKey: 'sk-abort-test-1234' } }, `models:\n  m:\n    provider: up\n    model: gpt-4o-mini\ntracing:\n  enabled: true\n  endpoint: ${receiver.url}\n  protocol: http/json\n`),
});
t.teardown(async () => {
  await gw.close();
  await Promise.all([receiver.close(), upstream.close()]);
});

t.test('the client aborts a stream after its first bytes', async (t) => {
  const traceId = '8bf92f3577b34da6a3ce929d0e0e0001';
  const abort = new AbortController();
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: `00-${traceId}-00f067aa0ba902b7-01` },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'talk' }] }),
    signal: abort.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  abort.abort();
  await reader.read().catch(() => undefined);
  // Both spans end once the gateway sees the socket close; the batch processor exports every 50 ms.
  const ended = () => receiver.spans.filter((span) => span.traceId === traceId);
  for (let i = 0; i < 400 && ended().length < 2; i++) await sleep(25);
  const server = ended().find((span) => span.kind === SPAN_KIND.server);
  const client = ended().find((span) => span.kind === SPAN_KIND.client);
  t.equal(server?.attributes['toolgate.client_aborted'], true);
  t.match(client?.attributes, { 'error.type': 'client_aborted', 'toolgate.failure': 'client_aborted' });
  t.equal(client?.attributes['gen_ai.response.finish_reasons'], undefined, 'the stream never finished');
});
