import { jsonrepair } from 'jsonrepair';
import { type Clock, TokenBucket } from '../state/token-bucket.js';

// Best-effort JSON repair with bounded cost, shared by the history pass (client arguments) and
// the answer normalizer (model arguments). jsonrepair re-scans from string starts on some broken
// shapes ('a'a'a…, "a"b"a…, `a`a…): worse than quadratic — `{'a'a'a…}` took 30–60 ms at 1 KB,
// 1.1 s at 4 KB and 8 s at 8 KB; 250 KB of 'a took 23 s. So it only sees text up to
// REPAIR_MAX_CHARS, not nested deeper than REPAIR_MAX_DEPTH (it recurses per level), and each
// tenant (gateway key scope) at most what its own token bucket allows, charged at the worst case
// (length²): one tenant's broken arguments never use up another's repairs (src/state/work-budgets.ts).
// Past any bound the caller keeps the text as it is (wrapped), and says so.

/** Longest text handed to jsonrepair (its worst shapes measured 30–60 ms at this size on a loaded 2-core machine). */
export const REPAIR_MAX_CHARS = 1_024;
/** Deepest bracket nesting handed to jsonrepair. */
export const REPAIR_MAX_DEPTH = 128;
// Budget per tenant in length² units: a burst of 2 worst cases at the cap, then one per 100 ms.
// Typical repairs (a few hundred characters) cost a tenth of one or less.
const WORST = REPAIR_MAX_CHARS * REPAIR_MAX_CHARS;
const BUCKET_UNITS = 2 * WORST;
const REFILL_UNITS_PER_MS = WORST / 100;

export type RepairOutcome =
  | { repaired: string }
  | { failed: true }
  | { skipped: 'too_large' | 'too_deep' | 'busy'; reason: string };

/** One tenant's jsonrepair budget (see src/state/work-budgets.ts for who holds one). */
export class RepairBudget {
  /** Characters handed to jsonrepair so far (for tests and benchmarks). */
  charsRepaired = 0;
  private readonly bucket: TokenBucket;

  /** `capacity` in length² units (default: 2 worst cases); tests may pass a clock. */
  constructor(options: { capacity?: number; now?: Clock } = {}) {
    this.bucket = new TokenBucket(options.capacity ?? BUCKET_UNITS, REFILL_UNITS_PER_MS, options.now);
  }

  /** Pays for repairing `chars` characters (length² units); false when the budget cannot. */
  take(chars: number): boolean {
    if (!this.bucket.take(chars * chars)) return false;
    this.charsRepaired += chars;
    return true;
  }
}

/** jsonrepair within the bounds above, paid from `budget` (the request's tenant's); never throws. */
export function repairJsonBounded(text: string, budget: RepairBudget): RepairOutcome {
  if (text.length > REPAIR_MAX_CHARS) {
    return { skipped: 'too_large', reason: `${text.length} characters is over the repair limit of ${REPAIR_MAX_CHARS}` };
  }
  if (bracketDepth(text, REPAIR_MAX_DEPTH) > REPAIR_MAX_DEPTH) {
    return { skipped: 'too_deep', reason: `nested deeper than the repair limit of ${REPAIR_MAX_DEPTH} levels` };
  }
  if (!budget.take(text.length)) return { skipped: 'busy', reason: 'the repair budget of this gateway key (or of the anonymous client when no keys are configured) is used up for now' };
  try {
    return { repaired: jsonrepair(text) };
  } catch {
    return { failed: true };
  }
}

/**
 * Nesting depth of `{`/`[` in (possibly broken) JSON text, skipping double-quoted strings; one
 * pass, stops counting once past `stopAbove`. For valid JSON this is the value's depth.
 */
export function bracketDepth(text: string, stopAbove = Infinity): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 123 /* { */ || c === 91 /* [ */) {
      depth++;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > stopAbove) return deepest;
      }
    } else if ((c === 125 /* } */ || c === 93) /* ] */ && depth > 0) {
      depth--;
    }
  }
  return deepest;
}

/** Nesting depth of a JSON-like value, iteratively (no recursion); stops counting past `stopAbove`. */
export function valueDepth(root: unknown, stopAbove = 10_000): number {
  const stack: Array<{ value: unknown; depth: number }> = [{ value: root, depth: 0 }];
  let deepest = 0;
  while (stack.length > 0) {
    const { value, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof value !== 'object' || value === null) continue;
    const here = depth + 1;
    if (here > deepest) {
      deepest = here;
      if (deepest > stopAbove) return deepest;
    }
    for (const child of Array.isArray(value) ? value : Object.values(value)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: here });
    }
  }
  return deepest;
}
