import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';

// No secret in any record, even with captureContent on and the secrets in the client's own text,
// in a repaired message, in an upstream error message and in a provider URL.

const PROVIDER_KEY = 'sk-PLANTED-provider-key-9f8e7d';
const URL_PASSWORD = 'PLANTED-url-pass-4c3b';
const GATEWAY_KEY = 'tg-PLANTED-gateway-key-1a2b';
const METRICS_KEY = 'PLANTED-metrics-key-5d6e';
const SECRETS = [PROVIDER_KEY, URL_PASSWORD, GATEWAY_KEY, METRICS_KEY];

t.test('records hold no configured secret and no Authorization header', async (t) => {
  const upstream = await startOpenAIEmulator({
    script: () => ({ error: { status: 400, body: { error: { message: `Incorrect API key provided: ${PROVIDER_KEY}`, type: 'invalid_request_error', code: 'invalid_api_key', param: null } } } }),
  });
  const withPassword = upstream.url.replace('http://', `http://user:${URL_PASSWORD}@`);
  const gw = await startGateway({
    yaml: configFor(
      { quoting: { baseUrl: upstream.url, apiKey: PROVIDER_KEY }, userinfo: { baseUrl: withPassword, apiKey: PROVIDER_KEY } },
      `auth:\n  keys:\n    - {key: ${GATEWAY_KEY}, name: admin}\n  metricsKey: ${METRICS_KEY}\ninspector:\n  enabled: true\n  captureContent: true\n  adminKeys: [admin]\n`,
    ),
    logLevel: 'warn',
  });
  t.teardown(async () => {
    await gw.close();
    await upstream.close();
  });
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${GATEWAY_KEY}` };
  const leaky = `my keys: ${SECRETS.join(' ')}`;
  const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
  const bodies = [
    // A broken history whose repaired message quotes every secret (captured content, in the diff).
    { model: 'simulator/weather', tools, messages: [{ role: 'user', content: leaky }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city: leaky }) } }] }, { role: 'tool', content: leaky }] },
    { model: 'simulator/weather:hermes', stream: true, tools, messages: [{ role: 'user', content: `Weather in ${PROVIDER_KEY}?` }] },
    { model: 'quoting/m', messages: [{ role: 'user', content: leaky }] },
    { model: 'userinfo/m', messages: [{ role: 'user', content: leaky }] },
  ];
  for (const body of bodies) await (await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body) })).text();

  const list = await (await fetch(`${gw.url}/v1/toolgate/requests`, { headers })).text();
  const ids = (JSON.parse(list) as { data: Array<{ id: string }> }).data.map((r) => r.id);
  t.equal(ids.length, bodies.length);
  let all = list;
  for (const id of ids) all += await (await fetch(`${gw.url}/v1/toolgate/requests/${id}`, { headers })).text();
  for (const secret of SECRETS) t.notOk(all.includes(secret), `no ${secret.slice(0, 12)}… in any record`);
  t.notOk(/bearer/i.test(all), 'no Authorization header');
  // Not vacuous: the captured text and the upstream's error were there, scrubbed.
  t.ok(all.includes('my keys: [REDACTED]'), 'captured content, scrubbed');
  t.ok(all.includes('Incorrect API key provided: [REDACTED]'), "the upstream's error, scrubbed");
});
