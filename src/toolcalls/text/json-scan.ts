import { type RepairBudget, repairJsonBounded } from '../../util/bounded-json.js';
import { type JsonEnd, structureOf } from './json-structure.js';

// Helpers for JSON embedded in model text: where a value ends (string- and nesting-aware, so
// braces and tags inside strings do not confuse it) and a forgiving parse for what models write.

export type { JsonEnd } from './json-structure.js';
export { releaseJsonStructures } from './json-structure.js';

/**
 * Finds the end of the object or array that starts at `start` (exclusive), 'incomplete' when the
 * text ends first, 'invalid' when brackets mismatch. Single-quoted strings are tracked as well
 * (models write Python-ish dicts); valid JSON never has a quote outside a string. Answers are
 * memoized per text, so asking at every opener of a text costs linear time in total.
 */
export function findJsonEnd(text: string, start: number): JsonEnd {
  return structureOf(text).endOf(start);
}

/** How deep values parsed from model text may nest; deeper ones are not calls (they stay content). */
export const MAX_NESTING = 64;

/** Does `value` nest objects/arrays deeper than `limit`? Iterative: safe on any depth. */
export function exceedsDepth(value: unknown, limit = MAX_NESTING): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth >= limit) return true;
    for (const child of Object.values(current)) if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}

const NOT_PARSED = Symbol('not parsed');

/**
 * JSON.parse, then jsonrepair for the usual slips (single quotes, trailing commas, Python constants),
 * within the gateway's repair bounds (src/util/bounded-json.ts: 1 KB, nesting, the tenant's budget):
 * jsonrepair is worse than quadratic on quote runs (8 KB of {'a'a'a…} in a DeepSeek or Kimi call took 7 s).
 * Past a bound the slice is not a call and stays content.
 */
export function parseJsonLenient(slice: string, budget: RepairBudget): unknown {
  const strict = tryParse(slice);
  if (strict !== NOT_PARSED) return strict;
  const outcome = repairJsonBounded(slice, budget);
  if (!('repaired' in outcome)) return undefined;
  const repaired = tryParse(outcome.repaired);
  return repaired === NOT_PARSED ? undefined : repaired;
}

/** Strict parse; undefined when the text is not valid JSON. */
export function parseJsonStrict(slice: string): unknown {
  const value = tryParse(slice);
  return value === NOT_PARSED ? undefined : value;
}

function tryParse(slice: string): unknown {
  try {
    return JSON.parse(slice) as unknown;
  } catch {
    return NOT_PARSED;
  }
}

export { isRecord as isPlainObject } from '../../is-record.js';

/** Index of the first character at or after `from` that is not whitespace. */
export function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

export function isWhitespace(code: number): boolean {
  return code === 32 || code === 10 || code === 13 || code === 9 || code === 12 || code === 11 || code === 0xa0;
}
