import OpenAI from 'openai';
import t from 'tap';
import { checkAgainstPrometheus } from '../metrics/live-check.js';
import { requireBinary } from '../metrics/tools.js';
import { startOpenAIEmulator } from '../emulators/openai-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { runToolLoop } from '../helpers/tool-loop.js';

// A real Prometheus (Debian package) scrapes a live toolgate under traffic and evaluates every
// dashboard and alert expression the repo ships.

const prometheus = requireBinary('prometheus');

t.test('Prometheus evaluates every shipped expression against a live gateway', { skip: 'skip' in prometheus ? prometheus.skip : false, timeout: 90_000 }, async (t) => {
  if (!('path' in prometheus)) return;
  let calls = 0;
  const flaky = await startOpenAIEmulator({
    apiKey: 'k',
    script: (body: any, index: number) => {
      calls += 1;
      if (index % 4 === 3) return { error: { status: 503, body: { error: { message: 'overloaded', type: 'server_error', param: null, code: null } } } };
      if (body.messages.some((m: any) => m.role === 'tool')) return { text: 'done' };
      // Half text-written calls, half native calls under a near-miss name (aliased by toolgate).
      if (index % 2 === 0) return { text: '<tool_call>{"name": "get_weather", "arguments": {"city": "Quito"}}</tool_call>' };
      return { toolCalls: [{ name: 'tool_get_weather', arguments: { city: 'Quito' } }] };
    },
  });
  // tool_choice "required" answered in prose, then a call once asked again: a contract violation and a re-ask.
  const picky = await startOpenAIEmulator({
    apiKey: 'k',
    script: (body: any) => (String(body.messages.at(-1)?.content).startsWith('Your last answer') ? { toolCalls: [{ name: 'get_weather', arguments: { city: 'Quito' } }] } : { text: 'No tool needed.' }),
  });
  const gw = await startGateway({
    yaml: configFor({ flaky: { baseUrl: flaky.url, apiKey: 'k' }, picky: { baseUrl: picky.url, apiKey: 'k' } }, 'models:\n  weather:\n    provider: simulator\n    model: weather\n    pricing: {inputPerMTok: 1, outputPerMTok: 2}\n'),
    logLevel: 'warn',
  });
  t.teardown(async () => {
    await gw.close();
    await flaky.close();
    await picky.close();
  });
  const client = new OpenAI({ baseURL: gw.baseURL, apiKey: 'x', maxRetries: 0 });
  const feed = async (round: number) => {
    await runToolLoop(client, 'weather', `Weather in Paris and Lyon? round ${round}`, round % 2 === 1);
    await runToolLoop(client, 'simulator/weather:hermes', `Weather in Nice? round ${round}`, false);
    for (let i = 0; i < 2; i++) await runToolLoop(client, 'flaky/open-model', `Weather? ${round}-${i}`, false).catch(() => undefined);
    await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'weather', messages: [{ role: 'user', content: 'x' }, { role: 'tool', content: 'orphan' }] }) });
    await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'no-such/model', messages: [{ role: 'user', content: 'x' }] }) });
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }];
    await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'picky/open-model', messages: [{ role: 'user', content: 'Weather?' }], tools, tool_choice: 'required' }) });
  };
  const address = new URL(gw.url);
  await checkAgainstPrometheus(t, { binary: prometheus.path, target: `${address.hostname}:${address.port}`, feed, alertsMustFire: false });
  t.ok(calls > 0);
});
