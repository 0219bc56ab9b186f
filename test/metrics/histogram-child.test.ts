import { Histogram, Registry } from 'prom-client';
import t from 'tap';
import { directChild } from '../../src/metrics/histogram-child.js';

// A direct child must leave prom-client's exposition exactly as prom-client's own observe would:
// the same values through both, in two registries, compared as text — also across reset, remove
// and zero, which replace or drop the series the child adds to.

const BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

function pair() {
  const make = () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'toolgate_test_seconds', help: 'test', labelNames: ['endpoint', 'model'], buckets: BUCKETS, registers: [registry] });
    return { registry, histogram };
  };
  return { reference: make(), direct: make() };
}

function values(seed: number, count: number): number[] {
  let state = seed;
  const out: number[] = [0, 0.005, 10, 10.0001, 1e-9, 2.5];
  while (out.length < count) {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    out.push((state / 2 ** 31) ** 3 * 14);
  }
  return out;
}

t.test('the same exposition as prom-client observe, over many values and two label sets', async (t) => {
  const { reference, direct } = pair();
  const labelSets = [
    { endpoint: 'chat_completions', model: 'a' },
    { endpoint: 'responses', model: 'b' },
  ];
  const referenceChildren = labelSets.map((labels) => reference.histogram.labels(labels));
  const directChildren = labelSets.map((labels) => directChild(direct.histogram, labels));
  values(7, 2000).forEach((value, i) => {
    referenceChildren[i % 2].observe(value);
    directChildren[i % 2].observe(value);
  });
  t.equal(await direct.registry.metrics(), await reference.registry.metrics());
});

t.test('reset, remove and zero: the child goes on counting into the series prom-client now has', async (t) => {
  const { reference, direct } = pair();
  const labels = { endpoint: 'chat_completions', model: 'a' };
  const referenceChild = reference.histogram.labels(labels);
  const child = directChild(direct.histogram, labels);
  const both = (value: number): void => {
    referenceChild.observe(value);
    child.observe(value);
  };
  [0.2, 3, 0.01].forEach(both);
  reference.registry.resetMetrics();
  direct.registry.resetMetrics();
  [0.7, 20].forEach(both);
  t.equal(await direct.registry.metrics(), await reference.registry.metrics(), 'after reset');
  reference.histogram.remove(labels);
  direct.histogram.remove(labels);
  [0.04].forEach(both);
  t.equal(await direct.registry.metrics(), await reference.registry.metrics(), 'after remove');
  reference.histogram.zero({ ...labels });
  direct.histogram.zero({ ...labels });
  [0.3, 0.003].forEach(both);
  t.equal(await direct.registry.metrics(), await reference.registry.metrics(), 'after zero');
});

t.test('a value prom-client refuses is refused the same way', async (t) => {
  const { direct } = pair();
  const child = directChild(direct.histogram, { endpoint: 'x', model: 'y' });
  child.observe(1);
  t.throws(() => child.observe(Number.NaN), TypeError);
  t.throws(() => child.observe(Number.POSITIVE_INFINITY), TypeError);
});

t.test('a histogram without labels: the same exposition as prom-client, across reset', async (t) => {
  const make = () => {
    const registry = new Registry();
    const histogram = new Histogram({ name: 'toolgate_test_overhead_seconds', help: 'test', buckets: BUCKETS, registers: [registry] });
    return { registry, histogram };
  };
  const reference = make();
  const direct = make();
  const child = directChild(direct.histogram, {});
  t.equal(await direct.registry.metrics(), await reference.registry.metrics(), 'before any value');
  for (const value of values(11, 500)) {
    reference.histogram.observe(value);
    child.observe(value);
  }
  t.equal(await direct.registry.metrics(), await reference.registry.metrics());
  reference.registry.resetMetrics();
  direct.registry.resetMetrics();
  for (const value of [0.0004, 0.3, 7]) {
    reference.histogram.observe(value);
    child.observe(value);
  }
  t.equal(await direct.registry.metrics(), await reference.registry.metrics(), 'after reset');
});

t.test('after its first value a child adds to its series itself, labels or none (prom-client observe not called again)', async (t) => {
  for (const labelNames of [['endpoint'], []]) {
    const histogram = new Histogram({ name: 'toolgate_test_calls_seconds', help: 'test', labelNames, buckets: BUCKETS, registers: [new Registry()] });
    const child = directChild(histogram, labelNames.length > 0 ? { endpoint: 'chat_completions' } : {});
    let calls = 0;
    const observe = histogram.observe.bind(histogram);
    histogram.observe = ((...args: Parameters<typeof histogram.observe>) => {
      calls++;
      observe(...args);
    }) as typeof histogram.observe;
    for (const value of values(3, 100)) child.observe(value);
    t.equal(calls, 1, `labels: [${labelNames.join(', ')}]`);
  }
});
