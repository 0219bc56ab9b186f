import t from 'tap';
import { probeModules } from '../helpers/module-probe.js';
import { startOtlpReceiver } from './otlp-receiver.js';

// Issue 19 §2: with tracing off the OpenTelemetry SDK is not loaded and costs nothing. A resolve
// hook registered before the gateway's modules are imported sees every module the gateway loads:
// with tracing off none is under @opentelemetry (a static import of the SDK anywhere in src/ fails
// this test); with tracing on the same probe does see them (so the probe can fail).

for (const name of Object.keys(process.env)) if (name.startsWith('OTEL_')) delete process.env[name];

const probe = probeModules('/@opentelemetry/');
const loaded = probe.resolved;
const settled = (): Promise<void> => probe.settled();

// Imported only now, so the probe sees the whole graph the gateway loads.
const { configFor, startGateway } = await import('../helpers/gateway.js');
const { tracingLoaded } = await import('../../src/tracing/index.js');

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    body: JSON.stringify({ model: 'simulator/weather', messages: [{ role: 'user', content: 'weather in Paris?' }] }),
  });
  await response.text();
  return response.status;
}

t.test('tracing off: no @opentelemetry module is loaded, even with a traceparent coming in', async (t) => {
  const gw = await startGateway({ yaml: configFor({}) });
  t.equal(await chat(gw.url), 200);
  await gw.close();
  await settled();
  t.same(loaded, [], 'no @opentelemetry module resolved');
  t.equal(tracingLoaded(), false);
});

t.test('tracing on: the same probe sees the SDK load (the check above can fail)', async (t) => {
  const receiver = await startOtlpReceiver();
  t.teardown(() => receiver.close());
  const gw = await startGateway({ yaml: `${configFor({})}tracing:\n  enabled: true\n  endpoint: ${receiver.url}\n  protocol: http/json\n` });
  t.equal(await chat(gw.url), 200);
  await gw.close();
  t.ok(receiver.spans.length >= 1, 'spans exported');
  await settled();
  t.ok(loaded.some((url) => url.includes('/@opentelemetry/sdk-trace-base/')), 'sdk-trace-base loaded');
  t.ok(loaded.some((url) => url.includes('/@opentelemetry/api/')), 'api loaded');
  t.equal(tracingLoaded(), true);
});
