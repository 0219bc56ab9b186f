// A tiny Prometheus text exposition parser for tests (also used by end-to-end tests):
//   metricValue(text, 'toolgate_llm_calls_total', { provider: 'p', model: 'm', endpoint: 'chat_completions', outcome: 'success' })
// Labels must match the sample's label set exactly; metricSum adds up every sample whose labels
// include the given ones (like PromQL sum over the rest).

// The parser itself lives with the demo (scripts/ may not import tests; tests may import scripts).
import { parseExposition } from '../../scripts/demo-metrics.js';

export { parseExposition, type Sample } from '../../scripts/demo-metrics.js';

function sameLabels(a: Record<string, string>, b: Record<string, string>): boolean {
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => b[k] === a[k]);
}

/** The value of the one sample with exactly this name and label set, or undefined. */
export function metricValue(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return parseExposition(text).find((s) => s.name === name && sameLabels(s.labels, labels))?.value;
}

/** Sum over samples of `name` whose labels include `labels`; undefined when none match. */
export function metricSum(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const matching = parseExposition(text).filter(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  return matching.length === 0 ? undefined : matching.reduce((sum, s) => sum + s.value, 0);
}
