import t from 'tap';
import fc from 'fast-check';
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

// The task called last is already the Map's last entry: calling it again moves nothing (no delete +
// set, whose holes make the Map rehash), and every order-dependent outcome stays the same.
t.test('calling the most recent task again does not re-insert it', async (t) => {
  const tracker = new TaskTracker({ idleMs: 1000, maxTasks: 10, now: () => 0, onEnd: () => {} });
  tracker.call('a');
  const remove = Map.prototype.delete;
  let deletes = 0;
  Map.prototype.delete = function (this: Map<unknown, unknown>, key: unknown) {
    deletes++;
    return remove.call(this, key);
  };
  try {
    for (let i = 0; i < 50; i++) tracker.call('a');
  } finally {
    Map.prototype.delete = remove;
  }
  t.equal(deletes, 0);
  tracker.close();
});

t.test('TaskTracker ends the same tasks, in the same order, as a plain re-insert on every call', async (t) => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('call' as const), key: fc.constantFrom('a', 'b', 'c', 'd'), advance: fc.integer({ min: 0, max: 40 }) }),
    fc.record({ kind: fc.constant('end' as const), key: fc.constantFrom('a', 'b', 'c', 'd'), advance: fc.constant(0) }),
    fc.record({ kind: fc.constant('sweep' as const), key: fc.constant(''), advance: fc.integer({ min: 0, max: 60 }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), fc.integer({ min: 1, max: 3 }), (ops, maxTasks) => {
      let now = 0;
      const ended: string[] = [];
      const tracker = new TaskTracker({ idleMs: 50, maxTasks, now: () => now, onEnd: (calls, reason) => ended.push(`${calls}/${reason}`) });
      // The model: re-insert on every call.
      const model = new Map<string, { calls: number; lastCall: number }>();
      const expected: string[] = [];
      const counts: Array<[number, number]> = [];
      for (const { kind, key, advance } of ops) {
        now += advance;
        if (kind === 'call') {
          const task = model.get(key);
          if (task) {
            model.delete(key);
            task.calls++;
            task.lastCall = now;
            model.set(key, task);
          } else {
            if (model.size >= maxTasks) {
              const [oldest, old] = model.entries().next().value as [string, { calls: number }];
              model.delete(oldest);
              expected.push(`${old.calls}/evicted`);
            }
            model.set(key, { calls: 1, lastCall: now });
          }
          counts.push([tracker.call(key), (model.get(key) as { calls: number }).calls]);
        } else if (kind === 'end') {
          const task = model.get(key);
          if (task) {
            model.delete(key);
            expected.push(`${task.calls}/final`);
          }
          tracker.end(key);
        } else {
          for (const [name, task] of model) {
            if (now - task.lastCall < 50) break;
            model.delete(name);
            expected.push(`${task.calls}/idle`);
          }
          tracker.sweep(now);
        }
      }
      tracker.close();
      return ended.join(',') === expected.join(',') && counts.every(([got, want]) => got === want) && tracker.size === model.size;
    }),
    { numRuns: 2000 },
  );
  t.pass('same ends and counts over 2,000 generated sequences');
});

// The next turn of a run sends the same system prompt and first user message (new strings): the
// last pair's key is found by comparing them, without joining the texts and hashing the join.
t.test('the same system prompt and first message again: the last key, no memo lookup', async (t) => {
  const { LRUCache } = await import('lru-cache');
  const turn = (extra: number) => [
    { role: 'system' as const, content: `You are a helpful assistant ${'.'.repeat(3)}` },
    { role: 'user' as const, content: ['Weather', 'in', 'Paris?'].join(' ') },
    ...Array.from({ length: extra }, () => ({ role: 'assistant' as const, content: 'ok' })),
  ];
  const first = taskKeyFor({ messages: turn(0) });
  const get = LRUCache.prototype.get;
  let gets = 0;
  LRUCache.prototype.get = function (this: InstanceType<typeof LRUCache>, ...args: Parameters<typeof get>) {
    gets++;
    return get.apply(this, args);
  } as typeof get;
  let again: string;
  try {
    again = taskKeyFor({ messages: turn(3) });
  } finally {
    LRUCache.prototype.get = get;
  }
  t.equal(again, first);
  t.equal(gets, 0);
  t.not(taskKeyFor({ messages: [{ role: 'system' as const, content: 'other' }, { role: 'user' as const, content: 'Weather in Paris?' }] }), first);
  t.equal(taskKeyFor({ messages: turn(1) }), first, 'and back');
  t.equal(taskKeyFor({ messages: turn(1), scope: 'k1' }), `k1/${first}`, 'scoped as before');
});
