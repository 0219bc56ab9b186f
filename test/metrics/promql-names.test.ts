import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { parse as parseYaml } from 'yaml';
import { createMetrics, createPriceLookup } from '../../src/metrics/index.js';
import { collectExpressions, metricNamesIn, REPO_ROOT, splitThreshold } from './promql-sources.js';

const expressions = collectExpressions();

t.test('every toolgate_* metric named in grafana/** and config/alerts.yml is exported', async (t) => {
  const metrics = createMetrics({ knownModels: [], pricing: createPriceLookup() });
  t.teardown(() => metrics.close());
  const exported = new Set(metrics.registry.getMetricsAsArray().map((m) => m.name));
  t.ok(expressions.filter((e) => e.kind === 'dashboard').length >= 20, 'dashboard expressions found');
  t.equal(expressions.filter((e) => e.kind === 'grafana-alert').length, 5);
  t.equal(expressions.filter((e) => e.kind === 'prometheus-alert').length, 5);
  t.equal(expressions.filter((e) => e.kind === 'dashboard-variable').length, 2);
  for (const { file, name, expr } of expressions) {
    const names = metricNamesIn(expr);
    t.ok(names.length > 0, `${file} "${name}" reads a toolgate metric`);
    for (const metric of names) t.ok(exported.has(metric), `${file} "${name}": ${metric} is exported`);
  }
});

t.test('Grafana and Prometheus alerts are the same five rules', async (t) => {
  const grafana = expressions.filter((e) => e.kind === 'grafana-alert');
  const provisioning = parseYaml(readFileSync(join(REPO_ROOT, 'grafana/provisioning/alerting/toolgate-alerts.yml'), 'utf8')) as {
    groups: Array<{ folder: string; rules: Array<{ title: string; for: string; data: Array<{ refId: string; datasourceUid: string; model: { conditions?: Array<{ evaluator: { type: string; params: number[] } }> } }> }> }>;
  };
  const prometheus = parseYaml(readFileSync(join(REPO_ROOT, 'config/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ alert: string; expr: string; for: string }> }>;
  };
  const grafanaRules = provisioning.groups.flatMap((g) => g.rules);
  t.equal(provisioning.groups[0].folder, 'toolgate');
  for (const rule of prometheus.groups.flatMap((g) => g.rules)) {
    const split = splitThreshold(rule.expr.trim());
    if (!t.ok(split, `${rule.alert} is "<signal> > <threshold>"`) || !split) continue;
    const twin = grafanaRules.find((r) => r.title === rule.alert);
    if (!t.ok(twin, `Grafana has ${rule.alert}`) || !twin) continue;
    const signal = grafana.find((e) => e.name === rule.alert)?.expr ?? '';
    const squash = (s: string) => s.replace(/\s+/g, '').replace(/^\((.*)\)$/, '$1');
    t.equal(squash(signal), squash(split.signal), `${rule.alert}: same signal`);
    const evaluator = twin.data.find((d) => d.datasourceUid === '__expr__')?.model.conditions?.[0]?.evaluator;
    t.same(evaluator, { type: split.op === '>' ? 'gt' : 'lt', params: [split.threshold] }, `${rule.alert}: same threshold`);
    t.equal(twin.for, rule.for, `${rule.alert}: same for`);
    t.ok(twin.data.every((d) => d.datasourceUid === 'prometheus' || d.datasourceUid === '__expr__'));
  }
});

t.test('dashboard and provisioning wiring', async (t) => {
  const dashboard = JSON.parse(readFileSync(join(REPO_ROOT, 'grafana/dashboards/toolgate.json'), 'utf8')) as {
    uid: string;
    panels: Array<{ type: string; title: string; datasource?: { uid: string }; targets?: Array<{ expr: string; datasource: { uid: string } }> }>;
  };
  t.equal(dashboard.uid, 'toolgate');
  for (const panel of dashboard.panels.filter((p) => p.type !== 'row')) {
    t.ok(panel.targets?.length, `${panel.title} has queries`);
    t.equal(panel.datasource?.uid, 'prometheus', `${panel.title} uses the provisioned datasource`);
    for (const target of panel.targets ?? []) t.equal(target.datasource.uid, 'prometheus');
  }
  const titles = dashboard.panels.map((p) => p.title.toLowerCase()).join(' | ');
  for (const topic of ['requests', 'latency', 'overhead', 'tool calls by mode', 'fallback rate', 'repairs', 'calls per task', 'tokens per hour', 'cost per hour', 'upstream errors', 'loops']) {
    t.match(titles, topic, `a panel about ${topic}`);
  }
  const datasource = parseYaml(readFileSync(join(REPO_ROOT, 'grafana/provisioning/datasources/prometheus.yml'), 'utf8')) as {
    datasources: Array<{ uid: string; url: string; type: string }>;
  };
  t.match(datasource.datasources[0], { uid: 'prometheus', url: 'http://prometheus:9090', type: 'prometheus' });
  const provider = parseYaml(readFileSync(join(REPO_ROOT, 'grafana/provisioning/dashboards/toolgate.yml'), 'utf8')) as {
    providers: Array<{ folder: string; options: { path: string } }>;
  };
  t.match(provider.providers[0], { folder: 'toolgate', options: { path: '/var/lib/grafana/dashboards' } });
  const prometheus = parseYaml(readFileSync(join(REPO_ROOT, 'config/prometheus.yml'), 'utf8')) as {
    rule_files: string[];
    scrape_configs: Array<{ metrics_path: string; scrape_interval: string; static_configs: Array<{ targets: string[] }> }>;
  };
  t.same(prometheus.rule_files, ['alerts.yml']);
  t.match(prometheus.scrape_configs[0], { metrics_path: '/metrics', scrape_interval: '15s', static_configs: [{ targets: ['toolgate:8080'] }] });
});
