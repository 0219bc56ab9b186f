import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';

// Issue 16 §5: the model is resolved once per request (the guards' preHandler) and every later step
// reads it; the route's config names its endpoint.

t.test('a request resolves its model once: chat, bridged Responses, with a gateway key', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'auth:\n  keys:\n    - {key: tg-key-123456, name: team}\n') });
  t.teardown(() => gw.close());
  const router = gw.gateway.router;
  const resolve = router.resolve.bind(router);
  let calls = 0;
  router.resolve = (name: string) => {
    calls += 1;
    return resolve(name);
  };
  const post = (path: string, body: unknown) =>
    fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tg-key-123456' }, body: JSON.stringify(body) });
  for (const [path, body] of [
    ['/v1/chat/completions', { model: 'simulator/weather', messages: [{ role: 'user', content: 'Weather in Oslo?' }] }],
    ['/v1/responses', { model: 'simulator/weather', input: 'Weather in Oslo?' }],
    ['/v1/responses', { model: 'simulator/weather', input: 'Weather in Oslo?', stream: true }],
  ] as const) {
    calls = 0;
    const response = await post(path, body);
    await response.text();
    t.equal(response.status, 200, path);
    t.equal(calls, 1, `${path}: resolved once`);
  }
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_requests_total\{endpoint="chat_completions",status="200"\} 1/);
  t.match(metrics, /toolgate_requests_total\{endpoint="responses",status="200"\} 2/);
});
