import t from 'tap';
import { metricSum, metricValue } from '../metrics/parse-exposition.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { WEATHER_TOOL } from '../helpers/tool-loop.js';

// Known traffic through the real gateway (simulator upstream), exact counter values on /metrics.

const gw = await startGateway({
  yaml: configFor({}, 'models:\n  weather:\n    provider: simulator\n    model: weather\n  weather-prompt:\n    provider: simulator\n    model: weather\n    toolCalling: prompt\n'),
});
t.teardown(() => gw.close());

async function chat(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const res = await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ tools: [WEATHER_TOOL], ...body }) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as any };
}

const call = (id: string, city: string) => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'get_weather', arguments: JSON.stringify({ city }) } }] });
const result = (id: string) => ({ role: 'tool', tool_call_id: id, content: '{"temp_c": 20}' });

t.test('known traffic → exact counters', async (t) => {
  // (a) native, (b) text-written, (c) prompt mode: each one tool call, task left open.
  const a = await chat({ model: 'simulator/weather', messages: [{ role: 'user', content: 'Weather in Paris?' }] });
  t.equal(a.headers.get('x-toolgate-tool-mode'), 'native');
  const b = await chat({ model: 'simulator/weather:hermes', messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
  t.equal(b.headers.get('x-toolgate-tool-mode'), 'text');
  const c = await chat({ model: 'weather-prompt', messages: [{ role: 'user', content: 'Weather in Rome?' }] });
  t.equal(c.headers.get('x-toolgate-tool-mode'), 'prompt');
  t.equal(c.body.choices[0].message.tool_calls[0].function.name, 'get_weather');
  // (d) a repaired history (object arguments) answered in text: its task ends after 1 call.
  const d = await chat({
    model: 'simulator/weather',
    messages: [{ role: 'user', content: 'Weather in Kyiv?' }, { role: 'assistant', content: null, tool_calls: [{ id: 'call_d', type: 'function', function: { name: 'get_weather', arguments: { city: 'Kyiv' } } }] }, result('call_d')],
  });
  t.equal(d.headers.get('x-toolgate-repairs'), 'arguments_stringified=1');
  // (e) a loop: the same call three times.
  const e = await chat({
    model: 'simulator/weather',
    messages: [{ role: 'user', content: 'Weather in Bern?' }, call('c1', 'Bern'), result('c1'), call('c2', 'Bern'), result('c2'), call('c3', 'Bern'), result('c3')],
  });
  t.equal(e.status, 200);
  // (f) a two-step task with an id.
  const f1 = await chat({ model: 'weather', messages: [{ role: 'user', content: 'Weather in Lima?' }] }, { 'x-toolgate-task-id': 'task-f' });
  const id = f1.body.choices[0].message.tool_calls[0].id;
  await chat({ model: 'weather', messages: [{ role: 'user', content: 'Weather in Lima?' }, f1.body.choices[0].message, result(id)] }, { 'x-toolgate-task-id': 'task-f' });

  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const v = (name: string, labels: Record<string, string> = {}) => metricValue(text, name, labels);
  t.equal(v('toolgate_tool_calls_total', { provider: 'simulator', model: 'simulator/weather', mode: 'native' }), 1);
  t.equal(v('toolgate_tool_calls_total', { provider: 'simulator', model: 'simulator/weather:hermes', mode: 'text' }), 1);
  t.equal(v('toolgate_tool_calls_total', { provider: 'simulator', model: 'weather-prompt', mode: 'prompt' }), 1);
  t.equal(v('toolgate_tool_calls_total', { provider: 'simulator', model: 'weather', mode: 'native' }), 1);
  t.equal(v('toolgate_tool_responses_total', { provider: 'simulator', model: 'simulator/weather', mode: 'none' }), 2, 'd and e answered in text');
  t.equal(v('toolgate_tool_responses_total', { provider: 'simulator', model: 'simulator/weather:hermes', mode: 'text' }), 1);
  t.equal(v('toolgate_repairs_total', { kind: 'arguments_stringified' }), 1);
  t.equal(v('toolgate_tool_loops_total'), 1);
  t.equal(v('toolgate_llm_calls_total', { provider: 'simulator', model: 'simulator/weather', endpoint: 'chat_completions', outcome: 'success' }), 3);
  t.equal(v('toolgate_llm_calls_total', { provider: 'simulator', model: 'weather', endpoint: 'chat_completions', outcome: 'success' }), 2);
  t.equal(v('toolgate_requests_total', { endpoint: 'chat_completions', status: '200' }), 7);
  // Tasks that ended: d (1 call), e (1 call), f (2 calls).
  t.equal(v('toolgate_llm_calls_per_task_count'), 3);
  t.equal(v('toolgate_llm_calls_per_task_sum'), 4);
  t.equal(v('toolgate_llm_calls_per_task_bucket', { le: '1' }), 2);
  t.equal(v('toolgate_llm_calls_per_task_bucket', { le: '2' }), 3);
  t.ok((metricSum(text, 'toolgate_tokens_total', { provider: 'simulator', type: 'prompt' }) ?? 0) > 0, 'prompt tokens counted');
  t.ok((metricSum(text, 'toolgate_time_to_first_token_seconds_count', { provider: 'simulator' }) ?? 0) >= 7);
  t.notMatch(text, /get_weather|call_d|Paris|task-f/, 'no tool names, ids or user text in labels');
});
