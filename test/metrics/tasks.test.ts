import t from 'tap';
import { createHash } from 'node:crypto';
import { createMetrics, createPriceLookup, taskKeyFor, TaskTracker } from '../../src/metrics/index.js';
import { metricValue } from './parse-exposition.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

t.test('a two-step task with an id observes 2 at the final answer', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup(), defaultMetrics: false });
  t.teardown(() => metrics.close());
  const key = taskKeyFor({ headerTaskId: 'run-42', messages: [{ role: 'user', content: 'hi' }] });
  metrics.taskCall(key); // step 1: the model asks for a tool
  metrics.taskCall(key); // step 2: final answer without tool calls
  metrics.taskEnd(key);
  metrics.taskEnd(key); // a second end is a no-op
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_count'), 1);
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_sum'), 2);
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_bucket', { le: '1' }), 0);
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_bucket', { le: '2' }), 1);
  t.equal(metricValue(text, 'toolgate_tasks_ended_total', { reason: 'final' }), 1);
});

t.test('an idle task ends on the (unref-ed) sweep timer', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup(), defaultMetrics: false, taskIdleMs: 40 });
  t.teardown(() => metrics.close());
  metrics.taskCall('header:a', 3);
  await sleep(150);
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_llm_calls_per_task_sum'), 3);
  t.equal(metricValue(text, 'toolgate_tasks_ended_total', { reason: 'idle' }), 1);
});

t.test('tracker: idle sweep in activity order, bounded size evicts the least recently active', async (t) => {
  let now = 0;
  const ended: Array<[number, string]> = [];
  const tracker = new TaskTracker({ idleMs: 100, maxTasks: 2, now: () => now, onEnd: (calls, reason) => ended.push([calls, reason]) });
  t.teardown(() => tracker.close());
  tracker.call('a');
  now = 50;
  tracker.call('b', 2);
  now = 60;
  tracker.call('a'); // a is now the most recently active
  now = 155;
  tracker.sweep();
  t.same(ended, [[2, 'idle']], 'b idled out (last call at 50), a did not (60)');
  tracker.call('c');
  tracker.call('d'); // full: evicts a
  t.same(ended, [[2, 'idle'], [2, 'evicted']]);
  t.equal(tracker.size, 2);
  tracker.end('unknown');
  t.equal(ended.length, 2);
});

t.test('taskKeyFor: header, metadata, user, fingerprint', async (t) => {
  const messages = [
    { role: 'system' as const, content: 'You are an agent.' },
    { role: 'user' as const, content: 'Book a flight.' },
  ];
  t.equal(taskKeyFor({ headerTaskId: 'h1', user: 'u', metadata: { task_id: 'm' }, messages }), 'header:h1');
  t.equal(taskKeyFor({ user: 'u', metadata: { session_id: 's1' }, messages }), 'metadata:s1');
  t.equal(taskKeyFor({ user: 'u', metadata: { other: 'x' }, messages }), 'user:u');
  t.equal(taskKeyFor({ metadata: { task_id: 7 }, messages }), 'metadata:7');
  const fp = taskKeyFor({ messages });
  t.match(fp, /^fp:/);
  const later = [
    ...messages,
    { role: 'assistant' as const, content: null },
    { role: 'tool' as const, content: 'ok' },
    { role: 'user' as const, content: 'And a hotel.' },
  ];
  t.equal(taskKeyFor({ messages: later }), fp, 'later steps of the same run share the key');
  t.not(taskKeyFor({ messages: [messages[0], { role: 'user', content: 'Other task.' }] }), fp);
  t.match(taskKeyFor({ headerTaskId: 'x'.repeat(500), messages }), /^header#/, 'long ids are hashed');
  const a = taskKeyFor({ messages: [] });
  t.not(a, taskKeyFor({ messages: [] }), 'nothing to fingerprint: a task of its own');
});

t.test('taskKeyFor: the prompt fingerprint is the digest of system + first user text, remembered or not', async (t) => {
  const expected = (system: string, user: string) => `fp:${createHash('sha256').update(`${system}\u0000${user}`).digest('base64url').slice(0, 22)}`;
  for (const [system, user] of [
    ['You are helpful.', 'Hi'],
    ['You are helpful.', 'Hi again'],
    ['x'.repeat(5000), 'long system prompt: not remembered'],
  ]) {
    const messages = [
      { role: 'system' as const, content: system },
      { role: 'user' as const, content: user },
    ];
    t.equal(taskKeyFor({ messages }), expected(system, user), 'first time');
    t.equal(taskKeyFor({ messages }), expected(system, user), 'again (remembered)');
  }
});
