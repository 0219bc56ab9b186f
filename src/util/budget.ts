// Byte budgets of the stores the gateway keeps. Memory stores evict by their own accounting of
// what they hold (lru-cache `maxSize` + `sizeCalculation`); every store, memory or Redis, refuses
// a single entry over its per-entry cap (counted, logged) instead of storing it.

/** What a store reports to /metrics. Redis stores know only what they refused. */
export interface StoreStats {
  /** Estimated bytes held (memory stores). */
  bytes?: number;
  /** Entries held (memory stores). */
  entries?: number;
  /** The configured budget in bytes (memory stores). */
  maxBytes?: number;
  /** Entries not stored since start because they were over the per-entry cap. */
  rejected: number;
}

export interface StoreBudget {
  /** Most bytes the whole store holds (memory); least recently used entries go first. */
  maxBytes: number;
  /** Largest single entry stored; a larger one is not stored (onOversize is told). */
  maxEntryBytes: number;
  /** Told about every entry refused for its size (the state wires a throttled warning). */
  onOversize?: (bytes: number, limit: number) => void;
}

// Rough V8 costs: an object or array header with its backing store, one slot per property or
// element, a string header. Estimates, not measurements: they keep the budget honest for
// payloads of many small items as well as for a few huge strings.
const OBJECT_BYTES = 64;
const SLOT_BYTES = 16;
const STRING_BYTES = 16;
// eslint-disable-next-line no-control-regex -- any character above Latin-1 makes V8 store two bytes per character
const TWO_BYTE = /[^\u0000-\u00ff]/;

/** Bytes of a string payload: one per character when Latin-1, two otherwise (V8's representations). */
export function stringBytes(text: string): number {
  return STRING_BYTES + (TWO_BYTE.test(text) ? text.length * 2 : text.length);
}

/** `stringBytes` of a text known to be one byte a character (Latin-1): no scan. */
export function latin1Bytes(text: string): number {
  return STRING_BYTES + text.length;
}

/**
 * Approximate heap bytes of a JSON-like value (what a store keeps). One pass with an explicit
 * stack: linear in the value's size, any nesting depth.
 */
export function approxBytes(value: unknown): number {
  let total = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string') total += stringBytes(next);
    else if (Array.isArray(next)) {
      total += OBJECT_BYTES + next.length * SLOT_BYTES;
      for (const element of next) if (typeof element === 'object' || typeof element === 'string') stack.push(element);
    } else if (typeof next === 'object' && next !== null) {
      for (const [key, field] of Object.entries(next)) {
        total += SLOT_BYTES + key.length;
        if (typeof field === 'object' || typeof field === 'string') stack.push(field);
      }
      total += OBJECT_BYTES;
    }
  }
  return total;
}

/** Bytes of what a Redis store sends for one entry (UTF-8, as Redis keeps it). */
export function wireBytes(parts: readonly string[]): number {
  let total = 0;
  for (const part of parts) total += Buffer.byteLength(part, 'utf8');
  return total;
}

/** A per-entry cap check that counts refusals (for StoreStats.rejected) and tells the budget's listener. */
export class EntryCap {
  rejected = 0;

  constructor(private readonly budget: Pick<StoreBudget, 'maxEntryBytes' | 'onOversize'>) {}

  /** True when an entry of `bytes` may be stored; otherwise counts and reports it. */
  admits(bytes: number): boolean {
    if (bytes <= this.budget.maxEntryBytes) return true;
    this.rejected += 1;
    this.budget.onOversize?.(bytes, this.budget.maxEntryBytes);
    return false;
  }
}
