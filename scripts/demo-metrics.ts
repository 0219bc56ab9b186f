// Prometheus text exposition → samples, and the difference between two scrapes. The metrics
// tests use the same parser (test/metrics/parse-exposition.ts re-exports it).

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

export function seriesKey(sample: Pick<Sample, 'name' | 'labels'>): string {
  const labels = Object.entries(sample.labels).map(([k, v]) => `${k}="${v}"`);
  return labels.length ? `${sample.name}{${labels.join(',')}}` : sample.name;
}

export interface Delta {
  series: string;
  name: string;
  delta: number;
}

/**
 * The `toolgate_*` series whose value changed between two scrapes. Histogram buckets are left out
 * (the `_count` says how many observations were added) and so are sums of seconds (timing noise).
 */
export function changedSeries(before: string, after: string, prefix = 'toolgate_'): Delta[] {
  const old = new Map(parseExposition(before).map((s) => [seriesKey(s), s.value]));
  const out: Delta[] = [];
  for (const sample of parseExposition(after)) {
    if (!sample.name.startsWith(prefix)) continue;
    if (sample.name.endsWith('_bucket')) continue;
    if (sample.name.endsWith('_seconds_sum')) continue;
    const key = seriesKey(sample);
    const delta = sample.value - (old.get(key) ?? 0);
    if (delta !== 0 && Number.isFinite(delta)) out.push({ series: key, name: sample.name, delta });
  }
  return out;
}

/** Sum of the deltas of one metric name. */
export function deltaOf(deltas: Delta[], name: string): number {
  return deltas.filter((d) => d.name === name).reduce((sum, d) => sum + d.delta, 0);
}

export function formatDelta(delta: number): string {
  const sign = delta > 0 ? '+' : '−';
  const abs = Math.abs(delta);
  return sign + (Number.isInteger(abs) ? String(abs) : abs.toPrecision(3));
}
