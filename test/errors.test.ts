import t from 'tap';
import { errors, replyHeaders } from '../src/errors.js';
import { configFor, startGateway } from './helpers/gateway.js';
import { sseChunk, startRawUpstream } from './helpers/raw-upstream.js';

const USER = [{ role: 'user', content: 'hello' }];

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, text, json: safeJson(text), headers: response.headers };
}

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function assertErrorShape(t: any, json: any) {
  t.ok(json?.error, 'has error');
  t.type(json.error.message, 'string');
  t.type(json.error.type, 'string');
  t.ok('param' in json.error && 'code' in json.error, 'param and code present');
}

t.test('client input errors are OpenAI-shaped 4xx', async (t) => {
  const gw = await startGateway({ yaml: configFor({}) });
  t.teardown(() => gw.close());

  const malformed = await post(gw.url, '{"model": ');
  t.equal(malformed.status, 400);
  assertErrorShape(t, malformed.json);
  t.equal(malformed.json.error.code, 'invalid_json');

  const noMessages = await post(gw.url, { model: 'simulator/weather' });
  t.equal(noMessages.status, 400);
  t.equal(noMessages.json.error.param, 'messages');

  const badRole = await post(gw.url, { model: 'simulator/weather', messages: [{ role: 'wizard', content: 'x' }] });
  t.equal(badRole.status, 400);
  t.equal(badRole.json.error.param, 'messages[0].role');

  const badStream = await post(gw.url, { model: 'simulator/weather', messages: USER, stream: 'yes' });
  t.equal(badStream.status, 400);
  t.equal(badStream.json.error.param, 'stream');

  const unknownModel = await post(gw.url, { model: 'nope/model', messages: USER });
  t.equal(unknownModel.status, 404);
  t.equal(unknownModel.json.error.code, 'model_not_found');

  const arrayBody = await post(gw.url, '[1,2]');
  t.equal(arrayBody.status, 400);
  assertErrorShape(t, arrayBody.json);

  const route = await fetch(`${gw.url}/v1/nothing-here`);
  t.equal(route.status, 404);
  assertErrorShape(t, await route.json());
});

t.test('body over the limit → 413', async (t) => {
  const gw = await startGateway({ yaml: `server:\n  bodyLimitBytes: 2048\nproviders:\n  simulator: {type: simulator}\n` });
  t.teardown(() => gw.close());
  const big = await post(gw.url, { model: 'simulator/weather', messages: [{ role: 'user', content: 'x'.repeat(5000) }] });
  t.equal(big.status, 413);
  assertErrorShape(t, big.json);
});

t.test('a keyed provider without a key → 401 naming the env var, upstream never called', async (t) => {
  const upstream = await startRawUpstream((_req, res) => res.end('{}'));
  t.teardown(() => upstream.close());
  const gw = await startGateway({
    yaml: `providers:\n  openai:\n    type: openai\n    baseUrl: ${upstream.baseURL}\n    apiKey: \${OPENAI_API_KEY}\n`,
    env: {},
  });
  t.teardown(() => gw.close());
  const res = await post(gw.url, { model: 'openai/gpt-4o-mini', messages: USER });
  t.equal(res.status, 401);
  t.match(res.json.error.message, /OPENAI_API_KEY/);
  t.equal(res.json.error.code, 'provider_key_missing');
  t.equal(upstream.hits, 0);
});

t.test('upstream 4xx passes through with its message; 5xx keeps its status', async (t) => {
  const upstream = await startRawUpstream((_req, res) => {
    res.writeHead(429, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Rate limit reached for gpt-4o-mini', type: 'requests', param: null, code: 'rate_limit_exceeded' } }));
  });
  t.teardown(() => upstream.close());
  const gw = await startGateway({ yaml: configFor({ openai: { type: 'openai', baseUrl: upstream.baseURL, apiKey: 'sk-a' } }) });
  t.teardown(() => gw.close());
  const res = await post(gw.url, { model: 'openai/gpt-4o-mini', messages: USER });
  t.equal(res.status, 429);
  t.equal(res.json.error.message, 'Rate limit reached for gpt-4o-mini');
  t.equal(res.json.error.code, 'rate_limit_exceeded');

  const down = await startRawUpstream((_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('upstream overloaded');
  });
  t.teardown(() => down.close());
  const gw2 = await startGateway({ yaml: configFor({ hf: { baseUrl: down.baseURL, apiKey: 'hf_a' } }) });
  t.teardown(() => gw2.close());
  const res2 = await post(gw2.url, { model: 'hf/x', messages: USER });
  t.equal(res2.status, 503);
  t.equal(res2.json.error.message, 'upstream overloaded');
});

t.test('connect failure → 502; no first byte within timeoutMs → 504; 200 non-JSON → 502', async (t) => {
  const hang = await startRawUpstream(() => undefined);
  const notJson = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html>oops</html>');
  });
  t.teardown(() => hang.close());
  t.teardown(() => notJson.close());
  const gw = await startGateway({
    yaml: configFor({
      dead: { baseUrl: 'http://127.0.0.1:1/v1', apiKey: 'k' },
      slow: { baseUrl: hang.baseURL, apiKey: 'k', extra: '    timeoutMs: 300\n' },
      html: { baseUrl: notJson.baseURL, apiKey: 'k' },
    }),
  });
  t.teardown(() => gw.close());
  const dead = await post(gw.url, { model: 'dead/m', messages: USER });
  t.equal(dead.status, 502);
  t.equal(dead.json.error.code, 'upstream_unreachable');
  const slow = await post(gw.url, { model: 'slow/m', messages: USER });
  t.equal(slow.status, 504);
  t.equal(slow.json.error.code, 'upstream_timeout');
  const slowStream = await post(gw.url, { model: 'slow/m', messages: USER, stream: true });
  t.equal(slowStream.status, 504);
  const html = await post(gw.url, { model: 'html/m', messages: USER });
  t.equal(html.status, 502);
  t.equal(html.json.error.code, 'upstream_bad_response');
});

t.test('an error after the stream started ends it with a data: {"error"} event', async (t) => {
  const reset = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('Hel'));
    res.write(sseChunk('lo'));
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const stall = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(sseChunk('Hel'));
  });
  t.teardown(() => reset.close());
  t.teardown(() => stall.close());
  const gw = await startGateway({
    yaml: configFor({
      reset: { baseUrl: reset.baseURL, apiKey: 'k' },
      stall: { baseUrl: stall.baseURL, apiKey: 'k', extra: '    streamIdleTimeoutMs: 300\n' },
    }),
  });
  t.teardown(() => gw.close());
  for (const model of ['reset/m', 'stall/m']) {
    const res = await post(gw.url, { model, messages: USER, stream: true });
    t.equal(res.status, 200, `${model}: stream started`);
    const events = res.text.split('\n\n').filter(Boolean);
    t.match(events[0], /"Hel"/, `${model}: content relayed`);
    const last = events[events.length - 1];
    t.match(last, /^data: \{"error":\{/, `${model}: terminal error event`);
    t.notMatch(res.text, /\[DONE\]/, `${model}: no [DONE] after an error`);
    assertErrorShape(t, JSON.parse(last.slice('data: '.length)));
  }
  const stalled = await post(gw.url, { model: 'stall/m', messages: USER, stream: true });
  t.match(stalled.text, /stream_idle_timeout/);
});

t.test('a client that disconnects mid-stream aborts the upstream request', async (t) => {
  const slow = await startRawUpstream((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const timer = setInterval(() => res.write(sseChunk('tick ')), 20);
    res.on('close', () => clearInterval(timer));
  });
  t.teardown(() => slow.close());
  const gw = await startGateway({ yaml: configFor({ slow: { baseUrl: slow.baseURL, apiKey: 'k' } }) });
  t.teardown(() => gw.close());
  const controller = new AbortController();
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'slow/m', messages: USER, stream: true }),
    signal: controller.signal,
  });
  const reader = response.body!.getReader();
  await reader.read();
  controller.abort();
  const closedEarly = await Promise.race([slow.closedEarly, new Promise<string>((r) => setTimeout(() => r('timeout'), 3000))]);
  t.equal(closedEarly, true, 'upstream connection closed before it finished');
});

t.test('replyHeaders: x-should-retry false on what a client retry cannot change or toolgate already retried', async (t) => {
  const upstream429 = errors.upstreamStatus(429, 'Rate limit reached', null, 'rate_limit_exceeded');
  upstream429.headers['retry-after'] = '7';
  t.same(replyHeaders(upstream429), { 'retry-after': '7', 'x-should-retry': 'false' }, "an upstream's 429 after toolgate's retries: final, its wait hint kept");
  t.same(replyHeaders(errors.toolContractViolation('p', 'm', 'broken', 'tools', 1)), { 'x-should-retry': 'false' });
  t.same(replyHeaders(errors.upstreamUnreachable('p', 'refused')), { 'x-should-retry': 'false' });
  t.same(replyHeaders(errors.circuitOpen('p', 30)), { 'retry-after': '30', 'x-should-retry': 'false' });
  t.same(replyHeaders(errors.invalidRequest('bad')), { 'x-should-retry': 'false' });
  t.same(replyHeaders(errors.budgetExceeded('k', 1, 3600)), { 'retry-after': '3600', 'x-should-retry': 'false' });
  t.same(replyHeaders(errors.rateLimited('k', '10 requests per minute', 20)), { 'retry-after': '20' }, "the key's per-minute limit: the client's retry after retry-after can pass");
  t.same(replyHeaders(errors.internal()), {}, 'no upstream behind it: left to the client');
  t.same(replyHeaders(errors.stateUnavailable()), { 'retry-after': '1' });
  t.same(replyHeaders(errors.shuttingDown()), {});
});
