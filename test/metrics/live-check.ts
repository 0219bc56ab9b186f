// Evaluates every dashboard and alert expression the repo ships through a real Prometheus that
// scrapes `target` while `feed` makes traffic. Reusable for end-to-end tests: point `target` at a
// running gateway and pass a feeder that sends it requests.
import { join } from 'node:path';
import type { Test } from 'tap';
import { collectExpressions, REPO_ROOT, splitThreshold, toEvaluable } from './promql-sources.js';
import { startPrometheus, type PrometheusHandle } from './prometheus-harness.js';
import type { TrafficFeeder } from './synthetic-traffic.js';

export interface LiveCheckOptions {
  /** The prometheus binary. */
  binary: string;
  /** host:port serving /metrics. */
  target: string;
  metricsPath?: string;
  feed: TrafficFeeder;
  /** Rounds of traffic, each followed by a scrape (rates need at least two samples). Default 3. */
  rounds?: number;
  /**
   * true: the traffic is meant to trip every alert — each rule in config/alerts.yml must return
   * samples as written and show up pending/firing in Prometheus. false: only the alert signals
   * (thresholds stripped) must return samples.
   */
  alertsMustFire?: boolean;
}

function hasNumber(samples: Array<{ value: [number, string] }>): boolean {
  return samples.some((s) => !Number.isNaN(Number(s.value[1])));
}

async function feedAndScrape(prometheus: PrometheusHandle, feed: TrafficFeeder, rounds: number): Promise<void> {
  await prometheus.nextScrape(); // the target is up and series exist before traffic changes them
  for (let round = 0; round < rounds; round += 1) {
    await feed(round);
    await prometheus.nextScrape();
  }
}

/** Returns the running Prometheus (stopped at t's teardown) for further queries. */
export async function checkAgainstPrometheus(t: Test, options: LiveCheckOptions): Promise<PrometheusHandle> {
  const alertsMustFire = options.alertsMustFire ?? true;
  const prometheus = await startPrometheus({
    binary: options.binary,
    target: options.target,
    metricsPath: options.metricsPath,
    rulesFile: join(REPO_ROOT, 'config/alerts.yml'),
  });
  t.teardown(() => prometheus.stop());
  await feedAndScrape(prometheus, options.feed, options.rounds ?? 3);

  for (const { kind, file, name, expr } of collectExpressions()) {
    const signal = kind === 'prometheus-alert' && !alertsMustFire ? (splitThreshold(expr)?.signal ?? expr) : expr;
    const evaluable = toEvaluable(signal);
    const result = await prometheus.query(evaluable).catch((error: Error) => error);
    if (result instanceof Error) {
      t.fail(`${file} "${name}": ${result.message}`, { expr: evaluable });
      continue;
    }
    t.ok(hasNumber(result.samples), `${kind} ${file} "${name}" returns data`, { expr: evaluable, result: result.samples });
  }

  const rules = await prometheus.api<{ groups: Array<{ rules: Array<{ name: string; health: string; lastError?: string }> }> }>(
    '/api/v1/rules',
  );
  const loaded = rules.groups.flatMap((g) => g.rules);
  t.equal(loaded.length, 5, 'Prometheus loaded the five rules of config/alerts.yml');
  for (const rule of loaded) t.not(rule.health, 'err', `${rule.name} evaluates without error ${rule.lastError ?? ''}`);

  if (alertsMustFire) {
    const expected = loaded.map((r) => r.name).sort();
    const deadline = Date.now() + 10_000;
    let active: string[] = [];
    while (Date.now() < deadline) {
      const { alerts } = await prometheus.api<{ alerts: Array<{ labels: { alertname: string }; state: string }> }>('/api/v1/alerts');
      active = [...new Set(alerts.map((a) => a.labels.alertname))].sort();
      if (expected.every((name) => active.includes(name))) break;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    t.same(active, expected, 'every alert is pending or firing on the bad traffic');
  }
  return prometheus;
}
