import { median, round } from './common.js';
import { TARGET_LABEL, type Mode, type Row, type Summary, type Target } from './types.js';

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

const JSON_METRICS = ['p50', 'p90', 'p99', 'cpuUsPerReq'];
const SSE_METRICS = ['ttfbP50', 'ttfbP99', 'ttlbP50', 'ttlbP99', 'cpuUsPerReq'];

/** One phase's summaries: the JSON metrics for JSON runs, the streaming ones for the others. */
export function summarizePhase(rows: readonly Row[], mode: Mode): Summary[] {
  return summarize(rows, mode === 'json' ? JSON_METRICS : SSE_METRICS);
}

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
    const pairedValues = (other: Target, metric: string, diff: boolean): number[] =>
      mine.flatMap((row) => {
        const peer = rows.find((p) => p.concurrency === concurrency && p.target === other && p.round === row.round);
        if (!peer) return [];
        const a = Number(row[metric]);
        const b = Number(peer[metric]);
        if (!Number.isFinite(a) || !Number.isFinite(b) || (!diff && b === 0)) return [];
        return [diff ? a - b : a / b];
      });
    const paired = (other: Target, metric: string, diff: boolean): number => {
      const values = pairedValues(other, metric, diff);
      return values.length > 0 ? round(median(values), 3) : NaN;
    };
    for (const { peer, key: ratioKey, applies } of PEERS) {
      if (!applies(target)) continue;
      const values = pairedValues(peer, 'rps', false);
      if (values.length === 0) continue;
      summary[ratioKey] = round(median(values), 3);
      // The lowest and highest round: how far a verdict near its threshold is from the other side.
      if (values.length > 1) {
        summary[`${ratioKey}Min`] = round(Math.min(...values), 3);
        summary[`${ratioKey}Max`] = round(Math.max(...values), 3);
      }
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
