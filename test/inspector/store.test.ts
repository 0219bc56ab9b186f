import t from 'tap';
import { InspectorStore } from '../../src/inspector/store.js';
import type { InspectorRecord } from '../../src/inspector/record.js';
import { configFor, startGateway } from '../helpers/gateway.js';

// The ring is bounded in bytes (the records' JSON, counted here independently), evicts oldest
// first, cuts records over the per-record cap, and keeps filters and paging consistent.

const identity = (text: string): string => text;

function record(id: string, extra: Partial<InspectorRecord> = {}): InspectorRecord {
  return {
    id,
    time: new Date(1_800_000_000_000).toISOString(),
    endpoint: 'chat_completions',
    method: 'POST',
    path: '/v1/chat/completions',
    stream: false,
    status: 200,
    outcome: 'success',
    latencyMs: 1,
    repairs: 0,
    fallback: false,
    attempts: 1,
    llmCalls: 1,
    findings: [],
    diffs: [],
    aliasing: [],
    attemptsDetail: [],
    warnings: [],
    ...extra,
  };
}

t.test('total bytes stay under maxBytes; the oldest are evicted, counted', async (t) => {
  const store = new InspectorStore({ maxBytes: 20_000, maxRecordBytes: 8_000, redact: identity });
  let added = 0;
  for (let index = 0; index < 300; index++) {
    store.add(record(`req_${index}`, { error: 'x'.repeat(index % 7 === 0 ? 900 : 10) }), '');
    added++;
    t.ok(store.stats.bytes <= 20_000, `after ${added}: ${store.stats.bytes} bytes`);
  }
  const { entries, evicted, bytes } = store.stats;
  t.equal(entries + evicted, 300, 'every record is either kept or counted as evicted');
  t.ok(evicted > 200, `evicted ${evicted}`);
  // Count independently: the JSON of what is still there is within the budget.
  const kept = store.list({}, 1_000).data;
  t.equal(kept.length, entries);
  t.equal(kept[0].id, 'req_299', 'newest kept');
  t.equal(kept.at(-1)?.id, `req_${300 - entries}`, 'a contiguous run of the newest: oldest went first');
  const json = kept.reduce((sum, summary) => sum + Buffer.byteLength(store.get(summary.id, undefined) ?? ''), 0);
  t.ok(json <= bytes && bytes <= 20_000, `records' JSON ${json} ≤ accounted ${bytes} ≤ budget`);
  t.equal(store.get('req_0', undefined), undefined, 'an evicted record is gone');
});

t.test('a record over maxRecordBytes loses its diff bodies, then is cut to its summary', async (t) => {
  const store = new InspectorStore({ maxBytes: 1_000_000, maxRecordBytes: 4_096, redact: identity });
  const big = Array.from({ length: 50 }, (_, i) => ({ role: 'tool', content: `${i}`.repeat(100) }));
  store.add(record('req_diff', { diffs: [{ target: 'messages', beforeCount: 50, afterCount: 50, hunks: [{ beforeIndex: 0, afterIndex: 0, before: big, after: big, findings: [] }] }] }), '');
  const slim = JSON.parse(store.get('req_diff', undefined) ?? '{}');
  t.equal(slim.truncated, true);
  t.same(slim.diffs[0].hunks[0].before, [], 'diff bodies dropped, the hunk positions kept');
  t.ok(Buffer.byteLength(store.get('req_diff', undefined) ?? '') <= 4_096);
  store.add(record('req_huge', { findings: Array.from({ length: 40 }, () => ({ target: 'messages', kind: 'k', index: 1, detail: 'd'.repeat(400) })) }), '');
  const cut = JSON.parse(store.get('req_huge', undefined) ?? '{}');
  t.equal(cut.truncated, true);
  t.equal(cut.findings, undefined, 'only the summary is left');
  t.equal(store.stats.rejected, 1);
});

t.test('scopes, filters and the cursor', async (t) => {
  const store = new InspectorStore({ maxBytes: 1_000_000, maxRecordBytes: 64_000, redact: identity });
  for (let index = 0; index < 10; index++) store.add(record(`req_${index}`, { repairs: index % 2, model: index < 5 ? 'a' : 'b' }), index % 3 === 0 ? 'scope-x' : 'scope-y');
  t.same(store.list({ scope: 'scope-x' }, 100).data.map((r) => r.id), ['req_9', 'req_6', 'req_3', 'req_0']);
  t.same(store.list({ hasRepairs: true, model: 'b' }, 100).data.map((r) => r.id), ['req_9', 'req_7', 'req_5']);
  const first = store.list({}, 3);
  t.same(first.data.map((r) => r.id), ['req_9', 'req_8', 'req_7']);
  const second = store.list({ before: first.next }, 3);
  t.same(second.data.map((r) => r.id), ['req_6', 'req_5', 'req_4']);
  t.equal(store.get('req_3', 'scope-y'), undefined, 'another scope: not found');
});

t.test('through the gateway: the inspector store is bounded and reported on /metrics', async (t) => {
  const gw = await startGateway({ yaml: configFor({}, 'inspector:\n  enabled: true\n  maxBytes: 16384\n  maxRecordBytes: 4096\n'), logLevel: 'warn' });
  t.teardown(() => gw.close());
  for (let index = 0; index < 40; index++) {
    await (await fetch(`${gw.url}/v1/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'simulator/weather', messages: [{ role: 'user', content: `hello ${index}` }] }) })).text();
  }
  const page = (await (await fetch(`${gw.url}/v1/toolgate/requests?limit=1000`)).json()) as { data: unknown[] };
  t.ok(page.data.length > 0 && page.data.length < 40, `${page.data.length} of 40 kept`);
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  const bytes = Number(/toolgate_state_bytes\{store="inspector"\} (\d+)/.exec(metrics)?.[1]);
  t.ok(bytes > 0 && bytes <= 16_384, `toolgate_state_bytes{store="inspector"} ${bytes}`);
  t.match(metrics, /toolgate_state_max_bytes\{store="inspector"\} 16384/);
});

t.test('one id reused by many requests: each eviction takes its oldest record', async (t) => {
  const store = new InspectorStore({ maxBytes: 10_000, maxRecordBytes: 4_096, redact: identity });
  for (let index = 0; index < 200; index++) store.add(record('req_same', { latencyMs: index }), index % 2 ? 'a' : 'b');
  const kept = store.list({}, 1_000).data;
  t.equal(kept.length, store.stats.entries);
  t.same(kept.map((r) => r.latencyMs), Array.from({ length: kept.length }, (_, i) => 199 - i), 'the newest ones');
  t.equal(JSON.parse(store.get('req_same', 'a') ?? '{}').latencyMs, 199);
  t.equal(JSON.parse(store.get('req_same', 'b') ?? '{}').latencyMs, 198);
});
