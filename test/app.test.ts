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
