import t from 'tap';
import { plan } from '../../bench/throughput.js';
import type { Target } from '../../bench/types.js';

// What each round measures: every peer row at 32 connections in all three modes on every Node
// version; the 256-connection rows only where the plan is extended (first Node, full).

const ALL: Target[] = ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector'];

t.test('32 connections: every available peer in JSON, burst and paced; the long streams for the per-event cost', async (t) => {
  const cells = plan(false, ALL);
  for (const phase of ['json', 'burst', 'paced'] as const) {
    const cell = cells.find((c) => c.phase === phase && c.concurrency === 32);
    t.same(cell?.targets, ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector'], phase);
  }
  t.same(cells.find((c) => c.phase === 'burst-long')?.targets, ['bare', 'toolgate']);
  t.same(cells.find((c) => c.phase === 'paced' && c.concurrency === 1)?.targets, ['direct', 'bare', 'toolgate'], 'TTFB at one connection');
  t.notOk(cells.some((c) => c.concurrency === 256), 'no 256 connections');
});

t.test('extended: 256 connections, the 32-connection cells unchanged', async (t) => {
  const cells = plan(true, ALL);
  t.ok(cells.some((c) => c.phase === 'json' && c.concurrency === 256));
  t.ok(cells.some((c) => c.phase === 'burst' && c.concurrency === 256));
  t.same(cells.find((c) => c.phase === 'json' && c.concurrency === 32)?.targets, plan(false, ALL).find((c) => c.phase === 'json' && c.concurrency === 32)?.targets);
});

t.test('a skipped row (Portkey not installable, a config key not known yet) is left out of every cell', async (t) => {
  const cells = plan(true, ALL.filter((target) => target !== 'portkey' && target !== 'toolgate-inspector'));
  t.notOk(cells.some((c) => c.targets.includes('portkey') || c.targets.includes('toolgate-inspector')));
  t.ok(cells.every((c) => c.targets.length > 0));
});
