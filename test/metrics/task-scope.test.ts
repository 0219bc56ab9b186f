import t from 'tap';
import { taskKeyFor } from '../../src/metrics/index.js';
import { post, startReliableGateway } from '../helpers/reliable-gateway.js';
import { metricValue } from './parse-exposition.js';

// Task ids are per gateway key (issue 14 §3): two keys sending the same x-toolgate-task-id (or
// the same `user`, or the same opening prompt) are two tasks; one key's final answer never ends,
// nor adds its calls to, the other key's task.

const TOOLS = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const USER = [{ role: 'user' as const, content: 'What is the weather in Paris?' }];

t.test('taskKeyFor: the scope is part of every key', async (t) => {
  const base = { headerTaskId: 'run-1', messages: USER };
  t.equal(taskKeyFor(base), 'header:run-1', 'anonymous: unchanged');
  t.not(taskKeyFor({ ...base, scope: 'aaa' }), taskKeyFor({ ...base, scope: 'bbb' }));
  t.not(taskKeyFor({ messages: USER, scope: 'aaa' }), taskKeyFor({ messages: USER, scope: 'bbb' }), 'prompt fingerprints too');
});

t.test("one key's final answer does not end another key's task with the same task id", async (t) => {
  const gw = await startReliableGateway(`providers:\n  simulator: {type: simulator}\nauth:\n  keys:\n    - {key: tg-alpha-key-0001, name: alpha}\n    - {key: tg-beta-key-00002, name: beta}\n`);
  t.teardown(() => gw.close());
  const headers = (key: string) => ({ authorization: `Bearer ${key}`, 'x-toolgate-task-id': 'run-shared' });
  const step = await post(gw.url, '/v1/chat/completions', { model: 'simulator/weather', messages: USER, tools: TOOLS }, headers('tg-alpha-key-0001'));
  t.ok(step.json.choices[0].message.tool_calls?.length, "A's task goes on (a tool call)");
  const final = await post(gw.url, '/v1/chat/completions', { model: 'simulator/weather', messages: USER }, headers('tg-beta-key-00002'));
  t.equal(final.json.choices[0].message.tool_calls, undefined, "B's answer is final");
  const text = await gw.gateway.metrics.render();
  t.equal(metricValue(text, 'toolgate_tasks_ended_total', { reason: 'final' }), 1, "only B's task ended");
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_sum'), 1, "with B's one call, not A's");
});
