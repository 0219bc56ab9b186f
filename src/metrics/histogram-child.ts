import type { Histogram } from 'prom-client';

// Hot-path histogram children that add to prom-client's own series directly. prom-client's
// labelled observe() (through a labels() child too) converts and validates the labels and rebuilds
// their hash string on every call. This child observes through prom-client once, which creates the
// series, then adds to that series the way prom-client's observe does (sum, count, the first bucket
// whose bound holds the value), so the exposition is the same. It reads prom-client 15's internal
// layout (`hashMap` of { labels, sum, count, bucketValues }, `upperBounds`); a series that was
// replaced or removed (reset, remove, zero) is noticed and the call goes through prom-client again.
// test/metrics/histogram-child.test.ts compares the exposition with prom-client's own observe.

/** What the request path calls, as a prom-client histogram child. */
export interface HistogramChild {
  observe(value: number): void;
}

interface Series {
  labels: object;
  sum: number;
  count: number;
  bucketValues: Record<string, number>;
}

interface HistogramInternals {
  hashMap: Record<string, Series | undefined>;
  upperBounds: readonly number[];
}

class DirectChild implements HistogramChild {
  /** prom-client's key of this child's series, once it exists. */
  private key: string | undefined;
  /** The series this child adds to (prom-client's object under `key`, while it is still there). */
  private series: Series | undefined;
  private keysFor: readonly number[] | undefined;
  private bucketKeys: readonly string[] = [];

  constructor(
    private readonly histogram: Histogram<string>,
    private readonly labels: Partial<Record<string, string | number>>,
  ) {}

  observe(value: number): void {
    const internals = this.histogram as unknown as HistogramInternals;
    const series = this.series;
    // Anything unusual (no series yet, a replaced or removed one, a value prom-client refuses) goes
    // through prom-client. reset, remove and zero all replace or drop the series object.
    if (series === undefined || internals.hashMap[this.key as string] !== series || !Number.isFinite(value)) {
      this.histogram.observe(this.labels, value);
      this.key = keyOf(internals.hashMap, this.labels);
      this.series = this.key === undefined ? undefined : internals.hashMap[this.key];
      return;
    }
    series.sum += value;
    series.count += 1;
    const bounds = internals.upperBounds;
    const keys = this.bucketKeysOf(bounds);
    for (let i = 0; i < bounds.length; i++) {
      if (value <= bounds[i]) {
        series.bucketValues[keys[i]] += 1;
        return;
      }
    }
  }

  /**
   * The bucket keys (prom-client's, the bounds as property names), made once per bounds array: a
   * bound like 0.025 as a key is a number-to-string conversion on every observe otherwise.
   */
  private bucketKeysOf(bounds: readonly number[]): readonly string[] {
    if (this.keysFor !== bounds) {
      this.keysFor = bounds;
      this.bucketKeys = bounds.map(String);
    }
    return this.bucketKeys;
  }
}

/** The key of the series prom-client created for exactly this labels object (it keeps the object it was given). */
function keyOf(hashMap: HistogramInternals['hashMap'], labels: object): string | undefined {
  for (const key in hashMap) if (hashMap[key]?.labels === labels) return key;
  // A histogram without labels has one series, which prom-client makes itself (key '').
  return Object.keys(labels).length === 0 && hashMap[''] !== undefined ? '' : undefined;
}

/** A child of `histogram` for these labels (one object per label set: the caller keeps it). */
export function directChild<T extends string>(histogram: Histogram<T>, labels: Partial<Record<T, string | number>>): HistogramChild {
  return new DirectChild(histogram as unknown as Histogram<string>, labels);
}
