import { jsonrepair } from 'jsonrepair';
import { LRUCache } from 'lru-cache';
import { TimeBudget } from './time-budget.js';
import { type Clock, TokenBucket } from './token-bucket.js';

// Best-effort JSON repair with bounded cost, shared by the history pass (client arguments) and
// the answer normalizer (model arguments). jsonrepair re-scans from string starts on some broken
// shapes ('a'a'a…, "a"b"a…, `a`a…): worse than quadratic — `{'a'a'a…}` took 30–130 ms at 1 KB
// (machine and load), 1.1 s at 4 KB and 8 s at 8 KB; 250 KB of 'a took 23 s. So it only sees text
// up to REPAIR_MAX_CHARS, not nested deeper than REPAIR_MAX_DEPTH (it recurses per level), and each
// tenant (gateway key scope) at most what its own token bucket allows: one tenant's broken
// arguments never use up another's repairs (src/state/work-budgets.ts).
//
// Two buckets per tenant for jsonrepair (a third, below, prices schema compiles by length). The size
// bucket is paid before a repair, at the worst case its size allows (length²), so nothing runs that
// it cannot cover on paper. The time bucket is paid after, with the time the repair really took, and
// a repair runs only while it is not in debt. The time bucket is what bounds the CPU: the size price
// alone assumed a 1 KB worst case costs 10–60 ms, and on a machine where it costs more than the
// refill (100 ms) a tenant sending answers full of such calls kept the event loop in jsonrepair all
// the time. Past any bound the caller keeps the text as it is (wrapped), and says so.

/** Longest text handed to jsonrepair (its worst shapes measured 30–130 ms at this size on a loaded 2-core machine). */
export const REPAIR_MAX_CHARS = 1_024;
/** Deepest bracket nesting handed to jsonrepair. */
export const REPAIR_MAX_DEPTH = 128;
// Size budget per tenant in length² units: a burst of 2 worst cases at the cap, then one per 100 ms.
// Typical repairs (a few hundred characters) cost a tenth of one or less.
const WORST = REPAIR_MAX_CHARS * REPAIR_MAX_CHARS;
const BUCKET_UNITS = 2 * WORST;
const REFILL_UNITS_PER_MS = WORST / 100;
/**
 * Time budget per tenant, in measured milliseconds of jsonrepair: a burst of 50 ms, then a tenth of
 * the event loop. A repair runs while the budget is not in debt, so the longest one parse can hold
 * the event loop in repairs is the burst plus one repair (at the size cap, 30–130 ms). Typical
 * repairs take microseconds; a GC pause inside one costs a few ms of it.
 */
export const REPAIR_TIME_BURST_MS = 50;
export const REPAIR_TIME_SHARE = 0.1;
/**
 * JSON-schema compiles (src/toolcalls/arguments.ts) per tenant, in characters of schema: a burst of
 * four schemas at the size cap, then 16 characters a ms. Priced by size, not timed: ajv's compile is
 * linear in the schema (3–7 µs a character), so this is 5–11% of the event loop, and a test's outcome
 * does not depend on the machine's load. A client's tools compile once (cached by their text).
 */
export const COMPILE_BURST_CHARS = 65_536;
export const COMPILE_CHARS_PER_MS = 16;
/**
 * Bytes of recent repairs (text and result) a tenant keeps, so the same text is repaired once: a
 * streamed call block that is still open is re-read as it grows (about nine reads of each call, see
 * CallScanner.push), and an agent loop sends the same broken arguments back on every turn.
 */
export const REPAIR_MEMO_BYTES = 32 * 1024;

export type RepairOutcome =
  | { repaired: string }
  | { failed: true }
  | { skipped: 'too_large' | 'too_deep' | 'busy'; reason: string };

/** Whose budget ran out, as the findings and `unchecked` notes name it. */
export const THIS_KEY = 'this gateway key (or of the anonymous client when no keys are configured)';

/** What jsonrepair made of a text: the repaired text, or null when it gave up. */
type Remembered = { repaired: string | null };

/** One tenant's budget for best-effort argument work (jsonrepair, schema compiles) and its memo of recent repairs (see src/state/work-budgets.ts for who holds one). */
export class RepairBudget {
  /** Characters handed to jsonrepair so far (for tests and benchmarks). */
  charsRepaired = 0;
  /** Repairs answered from the memo (for tests and benchmarks). */
  recalled = 0;
  private readonly size: TokenBucket;
  /** The tenant's measured time in jsonrepair. */
  readonly time: TimeBudget;
  private readonly compiles: TokenBucket;
  /** Made at the first repair: most keys never repair, and an empty LRUCache is ~1.5 KB. */
  private memo: LRUCache<string, Remembered> | undefined;

  /** `capacity` in length² units (default: 2 worst cases); tests may pass a clock. */
  constructor(options: { capacity?: number; now?: Clock } = {}) {
    const now = options.now ?? (() => performance.now());
    this.size = new TokenBucket(options.capacity ?? BUCKET_UNITS, REFILL_UNITS_PER_MS, now);
    this.time = new TimeBudget(REPAIR_TIME_BURST_MS, REPAIR_TIME_SHARE, now);
    this.compiles = new TokenBucket(COMPILE_BURST_CHARS, COMPILE_CHARS_PER_MS, now);
  }

  /** Pays for repairing `chars` characters (length² units); false when either budget cannot. */
  take(chars: number): boolean {
    if (!this.time.canRun() || !this.size.take(chars * chars)) return false;
    this.charsRepaired += chars;
    return true;
  }

  /** Pays for compiling a JSON schema of `chars` characters; false when the budget cannot. */
  takeCompile(chars: number): boolean {
    return this.compiles.take(chars);
  }

  /** What an earlier repair of `text` gave, or undefined. */
  recall(text: string): RepairOutcome | undefined {
    const known = this.memo?.get(text);
    if (known === undefined) return undefined;
    this.recalled++;
    return known.repaired === null ? { failed: true } : { repaired: known.repaired };
  }

  /** Keeps what jsonrepair made of `text` (a copy of it: `text` may be a slice of a whole answer). */
  remember(text: string, repaired: string | null): void {
    this.memo ??= new LRUCache<string, Remembered>({ maxSize: REPAIR_MEMO_BYTES, sizeCalculation: memoBytes });
    this.memo.set(` ${text}`.slice(1), { repaired });
  }
}

function memoBytes(value: Remembered, key: string): number {
  return 2 * (key.length + (value.repaired?.length ?? 0)) + 64;
}

/** jsonrepair within the bounds above, paid from `budget` (the request's tenant's); never throws. */
export function repairJsonBounded(text: string, budget: RepairBudget): RepairOutcome {
  if (text.length > REPAIR_MAX_CHARS) {
    return { skipped: 'too_large', reason: `${text.length} characters is over the repair limit of ${REPAIR_MAX_CHARS}` };
  }
  if (bracketDepth(text, REPAIR_MAX_DEPTH) > REPAIR_MAX_DEPTH) {
    return { skipped: 'too_deep', reason: `nested deeper than the repair limit of ${REPAIR_MAX_DEPTH} levels` };
  }
  const known = budget.recall(text);
  if (known !== undefined) return known;
  if (!budget.take(text.length)) return { skipped: 'busy', reason: `the repair budget of ${THIS_KEY} is used up for now` };
  // null: jsonrepair gave up (remembered too: it would give up again).
  const repaired = budget.time.timed(() => repairOrNull(text));
  budget.remember(text, repaired);
  return repaired === null ? { failed: true } : { repaired };
}

function repairOrNull(text: string): string | null {
  try {
    return jsonrepair(text);
  } catch {
    return null;
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
