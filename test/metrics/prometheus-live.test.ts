import t from 'tap';
import { createMetrics, createPriceLookup } from '../../src/metrics/index.js';
import { checkAgainstPrometheus } from './live-check.js';
import { collectExpressions, splitThreshold } from './promql-sources.js';
import { serveMetrics, syntheticTraffic } from './synthetic-traffic.js';
import { requireBinary } from './tools.js';

const prometheus = requireBinary('prometheus');

function alertSignal(name: string): string {
  const rule = collectExpressions().find((e) => e.kind === 'prometheus-alert' && e.name === name);
  const signal = rule && splitThreshold(rule.expr)?.signal;
  if (!signal) throw new Error(`no alert ${name}`);
  return signal;
}

t.test(
  'a real Prometheus scraping the registry evaluates every dashboard and alert expression',
  { skip: 'skip' in prometheus ? prometheus.skip : false, timeout: 60_000 },
  async (t) => {
    if (!('path' in prometheus)) return;
    const metrics = createMetrics({ knownModels: ['gpt-4o', 'llama-70b'], pricing: createPriceLookup() });
    const server = await serveMetrics(metrics);
    t.teardown(async () => {
      await server.close();
      metrics.close();
    });
    const prom = await checkAgainstPrometheus(t, { binary: prometheus.path, target: server.target, feed: syntheticTraffic(metrics) });

    // The shipped signals compute what the synthetic traffic put in (see synthetic-traffic.ts).
    const byLabels = async (expr: string, key: (m: Record<string, string>) => string) =>
      Object.fromEntries((await prom.query(expr)).samples.map((s) => [key(s.metric), Number(s.value[1])]));
    const fallback = await byLabels(alertSignal('ToolgateToolCallFallbackRateHigh'), (m) => `${m.provider}/${m.model}`);
    t.ok(Math.abs(fallback['openai/gpt-4o'] - 0.2) < 1e-9, `fallback rate of gpt-4o is 2/10 (${fallback['openai/gpt-4o']})`);
    t.ok(Number.isNaN(fallback['together/llama-70b']), 'prompt mode is not fallback: 0/0 for a prompt-mode model');
    const errors = await byLabels(alertSignal('ToolgateUpstreamErrorRateHigh'), (m) => m.provider);
    t.ok(Math.abs(errors.together - 0.3) < 1e-9 && Math.abs(errors.local - 0.1) < 1e-9 && errors.openai === 0, JSON.stringify(errors));
    const [p95] = (await prom.query(alertSignal('ToolgateLlmCallsPerTaskHigh'))).samples;
    t.ok(Math.abs(Number(p95.value[1]) - 14.375) < 1e-9, `p95 calls per task interpolates to 14.375 (${p95.value[1]})`);
    const [cost] = (await prom.query(alertSignal('ToolgateCostPerHourHigh'))).samples;
    t.ok(Number(cost.value[1]) >= 30, `cost over the last hour ≥ 2 rounds × 15 USD (${cost.value[1]})`);
  },
);
