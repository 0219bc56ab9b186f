// Every PromQL expression the repo ships: Grafana dashboards (panel targets and template
// variables), Grafana alert rules, and the Prometheus rules in config/alerts.yml.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type ExprKind = 'dashboard' | 'dashboard-variable' | 'grafana-alert' | 'prometheus-alert';

export interface PromqlExpr {
  kind: ExprKind;
  /** File relative to the repo root. */
  file: string;
  /** Panel title, variable name or alert name. */
  name: string;
  expr: string;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function isObject(value: Json | undefined): value is { [key: string]: Json } {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Every string under an `expr` key, with the nearest `title`/`name` above it. */
function walkExprs(node: Json, name: string, out: Array<{ name: string; expr: string }>): void {
  if (Array.isArray(node)) {
    for (const item of node) walkExprs(item, name, out);
    return;
  }
  if (!isObject(node)) return;
  const here = typeof node.title === 'string' ? node.title : typeof node.name === 'string' ? node.name : name;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'expr' && typeof value === 'string') out.push({ name: here, expr: value.trim() });
    else walkExprs(value, here, out);
  }
}

function variableQueries(dashboard: Json): Array<{ name: string; expr: string }> {
  const list = isObject(dashboard) && isObject(dashboard.templating) ? dashboard.templating.list : undefined;
  if (!Array.isArray(list)) return [];
  return list.flatMap((variable) => {
    if (!isObject(variable) || variable.type !== 'query') return [];
    const query = isObject(variable.query) ? variable.query.query : variable.query;
    return typeof query === 'string' ? [{ name: String(variable.name), expr: query }] : [];
  });
}

export function collectExpressions(root = REPO_ROOT): PromqlExpr[] {
  const out: PromqlExpr[] = [];
  for (const path of filesUnder(join(root, 'grafana'))) {
    const file = relative(root, path);
    const text = readFileSync(path, 'utf8');
    if (path.endsWith('.json')) {
      const dashboard = JSON.parse(text) as Json;
      const found: Array<{ name: string; expr: string }> = [];
      walkExprs(dashboard, file, found);
      out.push(...found.map((f) => ({ kind: 'dashboard' as const, file, ...f })));
      out.push(...variableQueries(dashboard).map((v) => ({ kind: 'dashboard-variable' as const, file, ...v })));
    } else if (/\.ya?ml$/.test(path)) {
      const found: Array<{ name: string; expr: string }> = [];
      walkExprs(parseYaml(text) as Json, file, found);
      out.push(...found.map((f) => ({ kind: 'grafana-alert' as const, file, ...f })));
    }
  }
  const rules = parseYaml(readFileSync(join(root, 'config/alerts.yml'), 'utf8')) as {
    groups: Array<{ rules: Array<{ alert?: string; record?: string; expr: string }> }>;
  };
  for (const group of rules.groups) {
    for (const rule of group.rules) {
      out.push({ kind: 'prometheus-alert', file: 'config/alerts.yml', name: rule.alert ?? rule.record ?? '', expr: rule.expr.trim() });
    }
  }
  return out;
}

/** toolgate_* metric names an expression reads, histogram suffixes stripped. */
export function metricNamesIn(expr: string): string[] {
  const names = expr.match(/\btoolgate_[A-Za-z0-9_]+/g) ?? [];
  return [...new Set(names.map((n) => n.replace(/_(bucket|sum|count)$/, '')))];
}

/** Splits "<signal> > <threshold>" (how every rule in config/alerts.yml is written). */
export function splitThreshold(expr: string): { signal: string; op: string; threshold: number } | undefined {
  const match = /^([\s\S]+?)\s*(>=|<=|>|<)\s*([0-9.]+)\s*$/.exec(expr);
  return match ? { signal: match[1].trim(), op: match[2], threshold: Number(match[3]) } : undefined;
}

/**
 * Grafana-only syntax replaced so Prometheus can evaluate the expression directly:
 * $__rate_interval and friends become `window`, $provider/$model become `.*`, and a
 * label_values(selector, label) variable query becomes `count by (label) (selector)`.
 */
export function toEvaluable(expr: string, window = '1m'): string {
  const labelValues = /^label_values\((.+),\s*([A-Za-z_][A-Za-z0-9_]*)\)$/.exec(expr.trim());
  const base = labelValues ? `count by (${labelValues[2]}) (${labelValues[1]})` : expr;
  return base
    .replace(/\$__(rate_interval|interval|range)\b/g, window)
    .replace(/\$\{?(provider|model)\}?/g, '.*');
}
