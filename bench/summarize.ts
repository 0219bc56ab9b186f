import { median, round } from './common.js';
import { TARGET_LABEL, type Row, type Summary, type Target } from './types.js';

// Rows of one phase (every round, every target) → one summary per (concurrency, target): medians
// over rounds, and ratios paired with the same round's peer run (adjacent in time, so robust to
// drift in other load on the machine), then the median of those ratios.

const PEERS: Array<{ peer: Target; key: keyof Summary & string; applies: (target: Target) => boolean }> = [
  { peer: 'bare', key: 'ratioToBare', applies: (target) => target !== 'bare' },
  { peer: 'parse', key: 'ratioToParse', applies: (target) => target.startsWith('toolgate') },
  // The proxies' own ×Portkey too: how high a Node proxy that does less than toolgate gets (goals.ts's floor lines).
  { peer: 'portkey', key: 'ratioToPortkey', applies: (target) => target.startsWith('toolgate') || target === 'bare' || target === 'parse' },
  { peer: 'toolgate', key: 'ratioToToolgate', applies: (target) => target.startsWith('toolgate-') },
];

export function summarize(rows: readonly Row[], metrics: readonly string[]): Summary[] {
  const out: Summary[] = [];
  const keys = [...new Set(rows.map((row) => `${row.concurrency}|${row.target}`))];
  for (const key of keys) {
    const [c, target] = key.split('|') as [string, Target];
    const concurrency = Number(c);
    const mine = rows.filter((row) => row.concurrency === concurrency && row.target === target);
    const summary: Summary = {
      concurrency,
      target,
      rps: median(mine.map((row) => row.rps)),
      errors: mine.reduce((n, row) => n + row.errors, 0),
      requests: mine.reduce((n, row) => n + row.requests, 0),
    };
    for (const metric of metrics) summary[metric] = round(median(mine.map((row) => Number(row[metric]))), 3);
    const paired = (other: Target, metric: string, diff: boolean): number => {
      const values = mine.flatMap((row) => {
        const peer = rows.find((p) => p.concurrency === concurrency && p.target === other && p.round === row.round);
        if (!peer) return [];
        const a = Number(row[metric]);
        const b = Number(peer[metric]);
        if (!Number.isFinite(a) || !Number.isFinite(b) || (!diff && b === 0)) return [];
        return [diff ? a - b : a / b];
      });
      return values.length > 0 ? round(median(values), 3) : NaN;
    };
    for (const { peer, key: ratioKey, applies } of PEERS) {
      if (!applies(target)) continue;
      const value = paired(peer, 'rps', false);
      if (Number.isFinite(value)) summary[ratioKey] = value;
    }
    if (target !== 'direct') for (const metric of metrics) summary[`added_${metric}`] = paired('direct', metric, true);
    out.push(summary);
  }
  const order = Object.keys(TARGET_LABEL);
  return out.sort((a, b) => a.concurrency - b.concurrency || order.indexOf(a.target) - order.indexOf(b.target));
}

export function find(summary: readonly Summary[] | undefined, concurrency: number, target: Target): Summary | undefined {
  return summary?.find((row) => row.concurrency === concurrency && row.target === target);
}
