import t from 'tap';
import { probeModules } from '../helpers/module-probe.js';

// jsdiff is required at the inspector's first diff: a gateway with the inspector off (the default)
// never loads it. A static import of `diff` anywhere the app loads fails the first test.

const probe = probeModules('/node_modules/diff/');

// Imported only now, so the probe sees the whole graph the gateway loads.
const { configFor, startGateway } = await import('../helpers/gateway.js');
const { alignedRuns } = await import('../../src/inspector/diff.js');

async function chat(url: string): Promise<number> {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'simulator/weather', messages: [{ role: 'user', content: 'weather in Paris?' }] }),
  });
  await response.text();
  return response.status;
}

t.test('inspector off: jsdiff is not loaded by starting the gateway and serving a request', async (t) => {
  const gw = await startGateway({ yaml: configFor({}) });
  t.equal(await chat(gw.url), 200);
  await gw.close();
  await probe.settled();
  t.same(probe.resolved, [], 'no jsdiff module resolved');
  t.equal(probe.required(), false, 'jsdiff not required');
});

t.test('the first diff loads it (the check above can fail) and aligns as before', async (t) => {
  t.same(alignedRuns(['a', 'b', 'c'], ['a', 'B', 'c']).list, [{ beforeIndex: 1, beforeCount: 1, afterIndex: 1, afterCount: 1 }]);
  t.equal(probe.required(), true, 'jsdiff required at the first diff');
  t.same(alignedRuns(['a', 'c'], ['a', 'b', 'c']).list, [{ beforeIndex: 1, beforeCount: 0, afterIndex: 1, afterCount: 1 }]);
});
