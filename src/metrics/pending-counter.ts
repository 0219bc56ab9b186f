import type { Counter } from 'prom-client';

// Hot-path counter children that add to a plain number, handed to prom-client when the counter
// is collected (a scrape, or get()). prom-client's own labelled inc() validates the labels and
// rebuilds their hash string on every call, even through a labels() child: several of those per
// request. The exposition is the same: a collect() adds what is pending before the counter is read.
// Bounded: one child per label set the caller creates (the callers' label sets are bounded).

/** What the request path calls: `inc(n = 1)`, as a prom-client counter child. */
export interface CounterChild {
  inc(value?: number): void;
}

const pendingOf = new WeakMap<object, PendingChild[]>();

class PendingChild implements CounterChild {
  pending = 0;

  constructor(
    private readonly counter: Counter<string>,
    readonly labels: Partial<Record<string, string | number>>,
  ) {}

  inc(value = 1): void {
    // Anything prom-client would refuse (negative, NaN, infinite) goes to it now, so it throws as before.
    if (value >= 0 && value !== Infinity) this.pending += value;
    else this.counter.inc(this.labels, value);
  }
}

/**
 * A child of `counter` for these labels, created at 0 (so rates over it start at 0 rather than
 * empty). Its counts reach prom-client when the counter's collect() runs: define the counter with
 * `collect: flushPendingCounts`.
 */
export function pendingChild<T extends string>(counter: Counter<T>, labels: Partial<Record<T, string | number>>): CounterChild {
  counter.inc(labels, 0);
  const child = new PendingChild(counter as Counter<string>, labels);
  let children = pendingOf.get(counter);
  if (!children) {
    children = [];
    pendingOf.set(counter, children);
  }
  children.push(child);
  return child;
}

/** A counter's collect(): adds the pending counts of its children (see pendingChild). */
export function flushPendingCounts(this: Counter<string>): void {
  const children = pendingOf.get(this);
  if (!children) return;
  for (const child of children) {
    if (child.pending === 0) continue;
    const value = child.pending;
    child.pending = 0;
    this.inc(child.labels, value);
  }
}
