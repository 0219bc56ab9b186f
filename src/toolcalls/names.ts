import { type Clock, TokenBucket } from '../state/token-bucket.js';
import type { NameMatchKind, NameResolution } from './types.js';

// Maps the name a model called to a declared tool name. In order:
//   1. exact — the declared name itself;
//   2. alias — a configured alias (called → declared);
//   3. normalized — equal after normalization: namespace prefixes (`functions.`, `default_api:`,
//      `default_api.`, `tools.`), `tool_` / `_tool` affixes, case and camelCase, `-` / `.` / spaces
//      vs `_` (the real incident: declared `search_procedure`, called `tool_search_procedure`);
//   4. fuzzy — the single declared name whose normalized form is at least FUZZY_THRESHOLD similar
//      (1 − edit distance / longer length, separators ignored), provided short words (≤ 3 letters,
//      like get/set/add/del) are the same on both sides, so `get_user` never becomes `set_user`.
// Anything else is not a declared tool (null). Build once per declared-tool set.
//
// Fuzzy matching is best effort with bounded cost: names longer than FUZZY_MAX_LENGTH letters are
// not fuzzy-matched, the edit distance only fills the diagonal band that can stay under the
// threshold, one lookup spends at most LOOKUP_CELLS cells, and each tenant (gateway key scope) at
// most what its own token bucket allows (FuzzyBudget, passed in per lookup; src/state/work-budgets.ts).
// Past a bound the answer is "not a declared tool" (counted as an unknown name), never a stall; an
// answer cut short by the budget is not cached (another tenant, or later, may still match it).

/** Minimum similarity for a fuzzy match: 0.85 ≈ one typo per 7 characters. */
export const FUZZY_THRESHOLD = 0.85;
/** Fuzzy matching is off for names shorter than this (one edit changes too much). */
const FUZZY_MIN_LENGTH = 5;
const CACHE_LIMIT = 512;
/** Longest name (in letters, separators removed) that fuzzy matching compares. */
export const FUZZY_MAX_LENGTH = 256;
/** Edit-distance cells one lookup may fill (≈ 2–5 ms). */
export const LOOKUP_CELLS = 250_000;
/** Per tenant: a burst of BUCKET_CELLS cells, refilled at REFILL_CELLS_PER_MS. */
const BUCKET_CELLS = 4_000_000;
const REFILL_CELLS_PER_MS = 2_000;

const PREFIXES = ['functions.', 'function.', 'functions:', 'default_api:', 'default_api.', 'tools.', 'tool.', 'tools:', 'api.'];

/** A lookup cut short by the budget: no answer, and nothing to cache. */
const OUT_OF_BUDGET = Symbol('out of budget');

export type NameResolverFunction = ((calledName: string, budget: FuzzyBudget) => NameResolution | null) & {
  /** The declared names this resolver was built for. */
  readonly declared: readonly string[];
};

export function createNameResolver(declared: readonly string[], aliases: Readonly<Record<string, string>> = {}): NameResolverFunction {
  const declaredSet = new Set(declared);
  const aliasMap = new Map<string, string>();
  for (const [called, target] of Object.entries(aliases)) if (declaredSet.has(target)) aliasMap.set(called, target);

  // Normalized key → declared names; a key shared by two declared names is ambiguous (unused).
  const byKey = new Map<string, string[]>();
  for (const name of declaredSet) {
    const key = normalizeToolName(name);
    byKey.set(key, [...(byKey.get(key) ?? []), name]);
  }
  // The same without separators: `getweather` vs `get_weather` is still a normalization.
  const byLetters = new Map<string, string[]>();
  for (const [key, names] of byKey) {
    const letters = key.replace(/_/g, '');
    byLetters.set(letters, [...(byLetters.get(letters) ?? []), ...names]);
  }
  const fuzzyCandidates = [...byKey].filter(([, names]) => names.length === 1).map(([key, names]) => ({ key, name: names[0], ...fuzzyForm(key) }));
  const cache = new Map<string, NameResolution | null>();

  // The resolver is shared by every tenant with the same tool set; the budget is the caller's.
  const resolve = (calledName: string, budget: FuzzyBudget): NameResolution | null => {
    if (declaredSet.has(calledName)) return { name: calledName, how: 'exact' };
    const cached = cache.get(calledName);
    if (cached !== undefined) return cached;
    const found = lookup(calledName, budget);
    if (found === OUT_OF_BUDGET) return null;
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(calledName, found);
    return found;
  };

  function lookup(calledName: string, budget: FuzzyBudget): NameResolution | null | typeof OUT_OF_BUDGET {
    const aliased = aliasMap.get(calledName) ?? aliasMap.get(calledName.trim());
    if (aliased !== undefined) return result(aliased, 'alias');
    const key = normalizeToolName(calledName);
    if (key === '') return null;
    const sameKey = byKey.get(key);
    if (sameKey) return sameKey.length === 1 ? result(sameKey[0], 'normalized') : null;
    const sameLetters = byLetters.get(key.replace(/_/g, ''));
    if (sameLetters) return sameLetters.length === 1 ? result(sameLetters[0], 'normalized') : null;
    return fuzzyMatch(key, budget);
  }

  function fuzzyMatch(key: string, work: FuzzyBudget): NameResolution | null | typeof OUT_OF_BUDGET {
    const called = fuzzyForm(key);
    if (called.letters.length < FUZZY_MIN_LENGTH || called.letters.length > FUZZY_MAX_LENGTH) return null;
    const budget = { cells: Math.min(LOOKUP_CELLS, work.available()) };
    const start = budget.cells;
    let best: string | null = null;
    try {
      for (const candidate of fuzzyCandidates) {
        if (candidate.shortWords !== called.shortWords) continue;
        const longer = Math.max(candidate.letters.length, called.letters.length);
        if (longer < FUZZY_MIN_LENGTH || longer > FUZZY_MAX_LENGTH) continue;
        // Distances above this bound cannot reach the threshold; the bound also cuts the work.
        const maxDistance = Math.floor((1 - FUZZY_THRESHOLD) * longer);
        if (Math.abs(candidate.letters.length - called.letters.length) > maxDistance) continue;
        const distance = editDistance(candidate.letters, called.letters, maxDistance, budget);
        // Out of cells: no guess. Only the tenant's bucket running dry is worth asking again;
        // a name that needs more than LOOKUP_CELLS always will.
        if (distance === undefined) return start < LOOKUP_CELLS ? OUT_OF_BUDGET : null;
        if (distance > maxDistance) continue;
        if (best !== null) return null; // two candidates: ambiguous
        best = candidate.name;
      }
    } finally {
      work.spend(start - budget.cells);
    }
    return best === null ? null : result(best, 'fuzzy');
  }

  return Object.assign(resolve, { declared: [...declaredSet] });
}

function result(name: string, how: NameMatchKind): NameResolution {
  return { name, how };
}

/** The comparison form of a tool name (see the header comment). */
export function normalizeToolName(name: string): string {
  let key = name
    .trim()
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase();
  for (let stripped = true; stripped; ) {
    stripped = false;
    for (const prefix of PREFIXES) {
      if (key.startsWith(prefix) && key.length > prefix.length) {
        key = key.slice(prefix.length);
        stripped = true;
      }
    }
  }
  key = key
    .replace(/[\s\-.:/]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '');
  if (key.startsWith('tool_') && key.length > 5) key = key.slice(5);
  if (key.endsWith('_tool') && key.length > 5) key = key.slice(0, -5);
  return key;
}

function fuzzyForm(key: string): { letters: string; shortWords: string } {
  const words = key.split('_').filter(Boolean);
  return {
    letters: words.join(''),
    shortWords: words
      .filter((word) => word.length <= 3)
      .sort()
      .join(' '),
  };
}

/** One tenant's fuzzy-matching budget in edit-distance cells (see src/state/work-budgets.ts). */
export class FuzzyBudget {
  private readonly bucket: TokenBucket;

  /** `capacity` in cells (default BUCKET_CELLS); tests may pass a clock. */
  constructor(options: { capacity?: number; now?: Clock } = {}) {
    this.bucket = new TokenBucket(options.capacity ?? BUCKET_CELLS, REFILL_CELLS_PER_MS, options.now);
  }

  available(): number {
    return this.bucket.available();
  }

  spend(cells: number): void {
    this.bucket.spend(cells);
  }
}

/**
 * Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. Only the
 * band of cells within `limit` of the diagonal is filled: O(length × limit). With a budget, each
 * cell is paid for; undefined when the budget runs out first.
 */
export function editDistance(a: string, b: string, limit = Infinity, budget?: { cells: number }): number | undefined {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  const band = Math.min(limit, Math.max(a.length, b.length));
  const over = band + 1;
  let previous = new Int32Array(b.length + 1);
  let current = new Int32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j <= band ? j : over;
  for (let i = 1; i <= a.length; i++) {
    const from = Math.max(1, i - band);
    const to = Math.min(b.length, i + band);
    if (budget !== undefined) {
      if (budget.cells < to - from + 1) return undefined;
      budget.cells -= to - from + 1;
    }
    current[0] = i <= band ? i : over;
    if (from > 1) current[from - 1] = over;
    let rowMin = current[0];
    const ai = a.charCodeAt(i - 1);
    for (let j = from; j <= to; j++) {
      let value = previous[j - 1] + (ai === b.charCodeAt(j - 1) ? 0 : 1);
      if (previous[j] + 1 < value) value = previous[j] + 1;
      if (current[j - 1] + 1 < value) value = current[j - 1] + 1;
      if (value > over) value = over;
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (to < b.length) current[to + 1] = over;
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return Math.min(previous[b.length], limit + 1);
}
