import t from 'tap';
import { GatewayError } from '../../src/errors.js';
import type { ChatRequest } from '../../src/api/chat-types.js';
import type { ProviderCallContext } from '../../src/providers/types.js';
import { startFaultyUpstream } from '../helpers/faulty-upstream.js';
import { isOpenAIError, post, startReliableGateway } from '../helpers/reliable-gateway.js';

const USER = [{ role: 'user', content: 'hello' }];

t.test('circuit breaker: opens after N failures of one model, skips to fallbacks or 503s, half-opens after the cool-down', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  flaky:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-flaky-1234
    retry: {maxAttempts: 1}
    circuitBreaker: {failureThreshold: 2, cooldownMs: 4000}
models:
  guarded: {provider: flaky, model: http-503@guarded, fallbacks: [simulator/weather]}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const call = (model: string, stream = false) => post(gw.url, '/v1/chat/completions', { model, messages: USER, stream });
  t.equal((await call('flaky/http-503')).status, 503);
  t.equal((await call('flaky/http-503', true)).status, 503);
  t.equal(upstream.total(), 2);
  const open = await call('flaky/http-503');
  t.equal(open.status, 503);
  t.ok(isOpenAIError(open.json));
  t.equal(open.json.error.code, 'upstream_circuit_open');
  t.match(open.json.error.message, /Provider 'flaky' is failing for model 'http-503'/);
  t.ok(Number(open.headers.get('retry-after')) >= 1);
  t.equal(upstream.total(), 2, 'an open breaker sends nothing upstream');
  t.equal((await call('flaky/ok')).status, 200, 'the breaker is per model: another model of the provider is still served');
  t.equal(upstream.total(), 3);
  t.equal((await call('guarded')).status, 200, 'a failing target falls back');
  t.equal((await call('guarded')).status, 200);
  t.equal(upstream.total(), 5, 'each went upstream first');
  const viaFallback = await call('guarded');
  t.equal(viaFallback.status, 200, 'open breaker → straight to the fallback');
  t.match(viaFallback.json.model, /simulator/);
  t.equal(upstream.total(), 5);
  // A cool-down long enough for the requests above on a loaded machine; waited out in full.
  await new Promise((r) => setTimeout(r, 4100));
  t.equal((await call('flaky/http-503')).status, 503, 'half-open: one trial goes out');
  t.equal(upstream.total(), 6);
  t.equal((await call('flaky/http-503')).json.error.code, 'upstream_circuit_open', 'the failed trial opens it again');
  t.equal(upstream.total(), 6);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_llm_calls_total\{[^}]*model="guarded"[^}]*outcome="fallback"\} 2\n/, 'a skipped (open) target is no call at all');
  t.match(metrics, /toolgate_llm_calls_total\{provider="simulator",model="simulator\/weather",endpoint="chat_completions",outcome="success"\} 3/, 'the fallback that answered is counted under its own labels');
});

t.test('circuit breaker: five 500s of one model leave the provider\'s other models alone; connect failures count for the provider', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(`providers:
  shared:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-shared-1234
    retry: {maxAttempts: 1}
  down:
    type: openai-compatible
    baseUrl: http://127.0.0.1:9/v1
    apiKey: sk-down-1234
    retry: {maxAttempts: 1}
    circuitBreaker: {failureThreshold: 2, cooldownMs: 60000}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const call = (model: string) => post(gw.url, '/v1/chat/completions', { model, messages: USER });
  for (let i = 0; i < 5; i++) t.equal((await call('shared/http-500@deprecated')).status, 500);
  t.equal((await call('shared/http-500@deprecated')).json.error.code, 'upstream_circuit_open', 'the failing model is refused');
  t.equal(upstream.total(), 5);
  const other = await call('shared/ok');
  t.equal(other.status, 200, 'another model on the same provider is served');
  t.equal(upstream.total(), 6);

  t.equal((await call('down/model-a')).json.error.code, 'upstream_unreachable');
  t.equal((await call('down/model-b')).json.error.code, 'upstream_unreachable');
  const refused = await call('down/model-c');
  t.equal(refused.json.error.code, 'upstream_circuit_open', 'connect failures of two models open the provider for all of them');
  t.match(refused.json.error.message, /^Provider 'down' is failing and/);
});

t.test('fallbacks: tried in order, each prepared for its own provider, and only those the key may use', async (t) => {
  const upstream = await startFaultyUpstream();
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  down:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: sk-down-1234
    retry: {maxAttempts: 1}
  nokey:
    type: openai-compatible
    baseUrl: ${upstream.baseURL}
    apiKey: \${UNSET_KEY}
models:
  chain: {provider: down, model: http-500@chain, fallbacks: [nokey/ok, down/http-503@second, simulator/weather]}
  stuck: {provider: down, model: http-400@stuck, fallbacks: [simulator/weather]}
auth:
  keys:
    - {key: tg-all-models-1, name: all}
    - {key: tg-down-only-2, name: downonly, models: ["down/*"]}
`);
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const body = { model: 'chain', messages: [{ role: 'user', content: 'Weather in Oslo?' }], tools };
  const ok = await post(gw.url, '/v1/chat/completions', body, { authorization: 'Bearer tg-all-models-1' });
  t.equal(ok.status, 200);
  t.equal(ok.json.choices[0].message.tool_calls[0].function.name, 'get_weather', 'the simulator answered with the declared tool');
  t.same(upstream.requests.map((r) => r.body.model), ['http-500@chain', 'http-503@second'], 'no key → skipped (an unknown fallback no longer loads: config test)');
  const denied = await post(gw.url, '/v1/chat/completions', body, { authorization: 'Bearer tg-down-only-2' });
  t.equal(denied.status, 503, 'the simulator fallback is outside the key: the last allowed failure is returned');
  t.same(upstream.requests.slice(2).map((r) => r.body.model), ['http-500@chain', 'http-503@second']);
  const stuck = await post(gw.url, '/v1/chat/completions', { ...body, model: 'stuck' }, { authorization: 'Bearer tg-all-models-1' });
  t.equal(stuck.status, 200, 'http-400 is unknown to the emulator, so it answers ok');
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  t.match(metrics, /toolgate_llm_calls_total\{[^}]*model="chain"[^}]*outcome="fallback"[^}]*\} [1-9]/);
});

t.test('retries honour retry-after (capped), never retry client errors, and stop when the client leaves', async (t) => {
  const gw = await startReliableGateway(`providers:
  simulator: {type: simulator}
  fake:
    type: simulator
    retry: {maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 3000}
  fake2:
    type: simulator
models:
  capped: {provider: fake, model: long-wait, fallbacks: [simulator/weather]}
`);
  t.teardown(() => gw.close());
  const times: number[] = [];
  const plan: Record<string, GatewayError[]> = {
    'short-wait': [new GatewayError(429, 'requests', 'slow down', { headers: { 'retry-after': '0.3' } })],
    'long-wait': [new GatewayError(429, 'requests', 'slow down', { headers: { 'retry-after': '30' } })],
    'bad-request': [new GatewayError(400, 'invalid_request_error', 'bad', { code: 'invalid_value' })],
  };
  // The configured `fake` provider (a simulator) is given scripted failures in front of its answers.
  const fake = gw.gateway.providers.get('fake')!;
  const answer = fake.complete.bind(fake);
  Object.assign(fake, {
    complete: async (request: ChatRequest, context: ProviderCallContext) => {
      times.push(performance.now());
      const next = plan[context.upstreamModel]?.shift();
      if (next) throw next;
      return answer(request, { ...context, upstreamModel: 'weather' });
    },
  });

  const waited = await post(gw.url, '/v1/chat/completions', { model: 'fake/short-wait', messages: USER });
  t.equal(waited.status, 200);
  t.equal(times.length, 2);
  t.ok(times[1] - times[0] >= 295, `waited for retry-after (${Math.round(times[1] - times[0])} ms)`);

  times.length = 0;
  const started = performance.now();
  const skipped = await post(gw.url, '/v1/chat/completions', { model: 'capped', messages: USER });
  t.equal(skipped.status, 200, 'retry-after above maxDelayMs → straight to the fallback');
  t.ok(performance.now() - started < 10_000, 'without waiting the 30 s retry-after');
  t.equal(times.length, 1);

  times.length = 0;
  const bad = await post(gw.url, '/v1/chat/completions', { model: 'fake/bad-request', messages: USER });
  t.equal(bad.status, 400);
  t.equal(times.length, 1, 'client errors are not retried');

  // The client goes away during the backoff: no further attempt.
  plan['slow-retry'] = [new GatewayError(503, 'upstream_error', 'down', { headers: { 'retry-after': '2' } })];
  times.length = 0;
  const abort = new AbortController();
  const pending = fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'fake/slow-retry', messages: USER }),
    signal: abort.signal,
  }).catch(() => 'aborted');
  // Left once the first attempt failed: during the 2 s backoff (however long the attempt took to start).
  while (times.length === 0) await new Promise((r) => setTimeout(r, 10));
  abort.abort();
  t.equal(await pending, 'aborted');
  await new Promise((r) => setTimeout(r, 2300));
  t.equal(times.length, 1, 'no retry after the client left');
  // Known (not resilience): the aborted request leaves a half-open keep-alive socket that makes
  // app.close() wait for keepAliveTimeout (72 s); reported to the lead. Close it here.
  gw.app.server.closeAllConnections();
});
