import t from 'tap';
import { startOpenAIEmulator } from '../../emulators/openai-server.js';
import { configFor, startGateway } from '../../helpers/gateway.js';
import { cases } from './suite.js';

// The Open Responses compliance suite (README.md) against toolgate: on the built-in simulator and
// on a bridged emulated upstream (chat completions only), over HTTP, SSE and WebSocket mode.

t.test('Open Responses compliance suite', async (t) => {
  const upstream = await startOpenAIEmulator();
  t.teardown(() => upstream.close());
  const gateway = await startGateway({ yaml: configFor({ oc: { baseUrl: upstream.url, apiKey: 'sk-oc-1234' } }), logLevel: 'warn' });
  t.teardown(() => gateway.close());
  for (const model of ['simulator/weather', 'oc/gpt-4o-mini']) {
    t.test(model, async (t) => {
      for (const [id, run] of Object.entries(cases)) {
        t.same(await run({ baseUrl: gateway.baseURL, model }), [], id);
      }
    });
  }
});
