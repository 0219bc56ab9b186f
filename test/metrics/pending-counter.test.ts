import { Counter, Registry } from 'prom-client';
import t from 'tap';
import { flushPendingCounts, pendingChild } from '../../src/metrics/pending-counter.js';
import { metricValue } from './parse-exposition.js';

function counter(registry: Registry, collect = true) {
  return new Counter({ name: 'test_total', help: 'test', labelNames: ['kind'] as const, registers: [registry], ...(collect ? { collect: flushPendingCounts } : {}) });
}

t.test('a pending child shows at 0 when created and every increment at the next scrape', async (t) => {
  const registry = new Registry();
  const child = pendingChild(counter(registry), { kind: 'a' });
  t.equal(metricValue(await registry.metrics(), 'test_total', { kind: 'a' }), 0, 'created at 0');
  child.inc();
  child.inc(2);
  child.inc(0);
  t.equal(metricValue(await registry.metrics(), 'test_total', { kind: 'a' }), 3);
  child.inc(4);
  t.equal(metricValue(await registry.metrics(), 'test_total', { kind: 'a' }), 7, 'flushed once: nothing counted twice');
  t.equal(metricValue(await registry.metrics(), 'test_total', { kind: 'a' }), 7);
});

t.test('the same totals as prom-client children, label sets kept apart', async (t) => {
  const fast = new Registry();
  const plain = new Registry();
  const fastCounter = counter(fast);
  const plainCounter = counter(plain, false);
  const children = { a: pendingChild(fastCounter, { kind: 'a' }), b: pendingChild(fastCounter, { kind: 'b' }) };
  for (let i = 0; i < 50; i++) {
    const kind = i % 3 === 0 ? 'b' : 'a';
    children[kind].inc(i % 5);
    plainCounter.inc({ kind }, i % 5);
  }
  for (const kind of ['a', 'b']) {
    t.equal(metricValue(await fast.metrics(), 'test_total', { kind }), metricValue(await plain.metrics(), 'test_total', { kind }), kind);
  }
  t.equal((await fastCounter.get()).values.reduce((sum, v) => sum + v.value, 0), (await plainCounter.get()).values.reduce((sum, v) => sum + v.value, 0), 'get() flushes too');
});

t.test('values prom-client refuses are refused as before', async (t) => {
  const child = pendingChild(counter(new Registry()), { kind: 'a' });
  t.throws(() => child.inc(-1));
  t.throws(() => child.inc(Number.POSITIVE_INFINITY));
});
