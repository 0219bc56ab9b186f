import t from 'tap';
import { plan } from '../../bench/throughput.js';
import type { Target } from '../../bench/types.js';

// What each round measures: every peer row at 32 connections in all three modes on every Node
// version, and direct / bare / toolgate at one connection.

const ALL: Target[] = ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector', 'toolgate-contract-off'];

t.test('32 connections: every available peer in JSON, burst and paced; 1 connection for the TTFB', async (t) => {
  const cells = plan(ALL);
  for (const phase of ['json', 'burst', 'paced'] as const) {
    const cell = cells.find((c) => c.phase === phase && c.concurrency === 32);
    t.same(cell?.targets, ['direct', 'bare', 'parse', 'toolgate', 'portkey', 'toolgate-inspector', 'toolgate-contract-off'], phase);
  }
  t.same(cells.find((c) => c.phase === 'paced' && c.concurrency === 1)?.targets, ['direct', 'bare', 'toolgate'], 'TTFB at one connection');
  t.same([...new Set(cells.map((c) => c.concurrency))].sort((a, b) => a - b), [1, 32], 'no other connection counts');
});

t.test('a skipped row (Portkey not installable, a config key not known yet) is left out of every cell', async (t) => {
  const cells = plan(ALL.filter((target) => target !== 'portkey' && target !== 'toolgate-inspector'));
  t.notOk(cells.some((c) => c.targets.includes('portkey') || c.targets.includes('toolgate-inspector')));
  t.ok(cells.every((c) => c.targets.length > 0));
});
