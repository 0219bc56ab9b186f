import t from 'tap';
import { MemoryLedger } from '../../src/ledger/memory.js';
import { createMetrics, createPriceLookup } from '../../src/metrics/index.js';
import { createMemoryResponseStore } from '../../src/state/response-store.js';
import type { ResponseObject } from '../../src/api/responses-types.js';
import { metricValue } from './parse-exposition.js';

// toolgate_state_* (issue 14 §5): store sizes read from the stores' own accounting at every scrape.

t.test('state metrics follow the stores: bytes, entries, budget, refused entries', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup(), defaultMetrics: false });
  t.teardown(() => metrics.close());
  const responses = createMemoryResponseStore({ ttlMs: 60_000, maxEntries: 100, maxBytes: 1_000_000, maxEntryBytes: 100_000 });
  const ledger = new MemoryLedger({ maxBytes: 500_000 });
  metrics.watchStore('responses', () => responses.stats?.());
  metrics.watchStore('ledger', () => ledger.stats());

  let text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_state_bytes', { store: 'responses' }), 0);
  t.equal(metricValue(text, 'toolgate_state_max_bytes', { store: 'responses' }), 1_000_000);
  t.equal(metricValue(text, 'toolgate_state_max_bytes', { store: 'ledger' }), 500_000);

  const input = [{ id: 'msg_1', type: 'message', role: 'user', content: 'x'.repeat(50_000) }];
  await responses.put({ response: { id: 'resp_1', object: 'response', output: [] } as unknown as ResponseObject, input });
  await responses.put({ response: { id: 'resp_2', object: 'response', output: [] } as unknown as ResponseObject, input: [{ ...input[0], content: 'x'.repeat(200_000) }] });
  text = await metrics.render();
  const bytes = metricValue(text, 'toolgate_state_bytes', { store: 'responses' }) ?? 0;
  t.ok(bytes >= 50_000 && bytes < 51_000, `one 50 KB response: ${bytes} bytes`);
  t.equal(metricValue(text, 'toolgate_state_entries', { store: 'responses' }), 1);
  t.equal(metricValue(text, 'toolgate_state_rejected_total', { store: 'responses' }), 1, 'the 200 KB one was refused');
  text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_state_rejected_total', { store: 'responses' }), 1, 'a counter: not re-added at the next scrape');
  t.equal(metricValue(text, 'toolgate_state_entries', { store: 'ledger' }), 0);
});

t.test('a store without accounting (Redis) reports only what it refused', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup(), defaultMetrics: false });
  t.teardown(() => metrics.close());
  metrics.watchStore('ledger', () => ({ rejected: 2 }));
  const text = await metrics.render();
  t.equal(metricValue(text, 'toolgate_state_bytes', { store: 'ledger' }), undefined);
  t.equal(metricValue(text, 'toolgate_state_rejected_total', { store: 'ledger' }), 2);
});
