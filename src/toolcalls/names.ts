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
// Anything else is not a declared tool (null). Pure; build once per declared-tool set.

/** Minimum similarity for a fuzzy match: 0.85 ≈ one typo per 7 characters. */
export const FUZZY_THRESHOLD = 0.85;
/** Fuzzy matching is off for names shorter than this (one edit changes too much). */
const FUZZY_MIN_LENGTH = 5;
const CACHE_LIMIT = 512;

const PREFIXES = ['functions.', 'function.', 'functions:', 'default_api:', 'default_api.', 'tools.', 'tool.', 'tools:', 'api.'];

export type NameResolverFunction = ((calledName: string) => NameResolution | null) & {
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

  const resolve = (calledName: string): NameResolution | null => {
    if (declaredSet.has(calledName)) return { name: calledName, how: 'exact' };
    const cached = cache.get(calledName);
    if (cached !== undefined) return cached;
    const found = lookup(calledName);
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(calledName, found);
    return found;
  };

  function lookup(calledName: string): NameResolution | null {
    const aliased = aliasMap.get(calledName) ?? aliasMap.get(calledName.trim());
    if (aliased !== undefined) return result(aliased, 'alias');
    const key = normalizeToolName(calledName);
    if (key === '') return null;
    const sameKey = byKey.get(key);
    if (sameKey) return sameKey.length === 1 ? result(sameKey[0], 'normalized') : null;
    const sameLetters = byLetters.get(key.replace(/_/g, ''));
    if (sameLetters) return sameLetters.length === 1 ? result(sameLetters[0], 'normalized') : null;
    return fuzzyMatch(key);
  }

  function fuzzyMatch(key: string): NameResolution | null {
    const called = fuzzyForm(key);
    if (called.letters.length < FUZZY_MIN_LENGTH) return null;
    let best: string | null = null;
    for (const candidate of fuzzyCandidates) {
      if (candidate.shortWords !== called.shortWords) continue;
      const longer = Math.max(candidate.letters.length, called.letters.length);
      if (longer < FUZZY_MIN_LENGTH) continue;
      // Distances above this bound cannot reach the threshold; the bound also cuts the work.
      const maxDistance = Math.floor((1 - FUZZY_THRESHOLD) * longer);
      if (Math.abs(candidate.letters.length - called.letters.length) > maxDistance) continue;
      if (editDistance(candidate.letters, called.letters, maxDistance) > maxDistance) continue;
      if (best !== null) return null; // two candidates: ambiguous
      best = candidate.name;
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

/** Levenshtein distance, giving up (returning limit + 1) once it must exceed `limit`. */
export function editDistance(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}
