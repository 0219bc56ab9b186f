// A tiny Prometheus text exposition parser for tests (also used by end-to-end tests):
//   metricValue(text, 'toolgate_llm_calls_total', { provider: 'p', model: 'm', endpoint: 'chat_completions', outcome: 'success' })
// Labels must match the sample's label set exactly; metricSum adds up every sample whose labels
// include the given ones (like PromQL sum over the rest).

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

function parseValue(raw: string): number {
  if (raw === '+Inf') return Infinity;
  if (raw === '-Inf') return -Infinity;
  if (raw === 'NaN') return NaN;
  return Number(raw);
}

/** Parses `name{a="x",b="y"} value [timestamp]` lines; comments and blank lines are skipped. */
export function parseExposition(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const nameEnd = line.search(/[{ ]/);
    if (nameEnd <= 0) throw new Error(`unparseable exposition line: ${line}`);
    const name = line.slice(0, nameEnd);
    const labels: Record<string, string> = {};
    let i = nameEnd;
    if (line[i] === '{') {
      i += 1;
      while (line[i] !== '}') {
        const eq = line.indexOf('=', i);
        const key = line.slice(i, eq).trim();
        if (line[eq + 1] !== '"') throw new Error(`unquoted label value: ${line}`);
        let value = '';
        let j = eq + 2;
        for (; line[j] !== '"'; j += 1) {
          if (j >= line.length) throw new Error(`unterminated label value: ${line}`);
          if (line[j] === '\\') {
            j += 1;
            value += line[j] === 'n' ? '\n' : line[j];
          } else {
            value += line[j];
          }
        }
        labels[key] = value;
        i = j + 1;
        if (line[i] === ',') i += 1;
      }
      i += 1;
    }
    const [value] = line.slice(i).trim().split(/\s+/);
    if (value === undefined || value === '') throw new Error(`missing value: ${line}`);
    samples.push({ name, labels, value: parseValue(value) });
  }
  return samples;
}

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
