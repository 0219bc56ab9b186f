import t from 'tap';
import { configFor, startGateway } from './helpers/gateway.js';

// The onRequest hook observes each request once when its response closes: in-process requests
// (Fastify inject, which the benchmarks and some tools use) as well as over a socket.

const gw = await startGateway({ yaml: configFor({}, 'models:\n  weather:\n    provider: simulator\n    model: weather\n'), logLevel: 'info' });
t.teardown(() => gw.close());

const body = JSON.stringify({ model: 'weather', messages: [{ role: 'user', content: 'Weather in Paris?' }] });

async function counted(): Promise<number> {
  const scrape = await gw.app.inject({ method: 'GET', url: '/metrics' });
  const line = scrape.payload.split('\n').find((row) => row.startsWith('toolgate_requests_total{endpoint="chat_completions",status="200"}'));
  return line === undefined ? 0 : Number(line.split(' ').pop());
}

t.test('an injected request is counted and logged once', async (t) => {
  const before = await counted();
  const accessLines = (): number => gw.logs.filter((line) => line.includes('"msg":"request"') && line.includes('/v1/chat/completions')).length;
  const logged = accessLines();
  const json = await gw.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: body });
  t.equal(json.statusCode, 200);
  const stream = await gw.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: { 'content-type': 'application/json' }, payload: body.replace('{', '{"stream":true,') });
  t.equal(stream.statusCode, 200);
  t.equal((await counted()) - before, 2, 'one count per request');
  t.equal(accessLines() - logged, 2, 'one access line per request');
});

// The access-log listener and the client-disconnect listener are one function each for every
// response (what they need rides on the response), not two closures and once-wrappers per request.
t.test('every response shares the same close listeners', async (t) => {
  const responses: import('node:http').ServerResponse[] = [];
  const capture = (_request: unknown, response: import('node:http').ServerResponse): void => {
    responses.push(response);
  };
  gw.app.server.on('request', capture);
  try {
    for (let i = 0; i < 2; i++) {
      const answer = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      t.equal(answer.status, 200);
      await answer.text();
    }
  } finally {
    gw.app.server.off('request', capture);
  }
  await new Promise((resolve) => setImmediate(resolve));
  const [first, second] = responses.map((response) => response.listeners('close'));
  const ours = first.filter((listener) => second.includes(listener));
  t.ok(ours.length >= 2, 'the access-log and client-abort listeners are the same functions on both responses');
});
