import type { LimitsConfig } from '../config/schema.js';
import { errors } from '../errors.js';
import { bracketDepth } from '../util/bounded-json.js';

// Request bodies are JSON whatever the content-type says. After parsing, one iterative walk
// (no recursion, so no stack overflow on hostile nesting) enforces the depth and string limits
// and refuses `__proto__` / `constructor.prototype` keys, like Fastify's own secure parser:
// later code may copy objects with Object.assign, and those keys must never reach it.
// Tool-call `arguments` are JSON inside a string: their own nesting counts against the same
// depth limit (one linear scan each), so no later parse / stringify / render recurses 20k deep.

export type BodyLimits = Pick<LimitsConfig, 'maxDepth' | 'maxStringLength'>;

export function parseJsonBody(text: string, limits: BodyLimits): unknown {
  if (text.trim() === '') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw errors.invalidJson(error instanceof Error ? error.message : 'malformed JSON');
  }
  checkTree(value, limits);
  return value;
}

/** Objects from JSON.parse (plain, inheriting only from Object.prototype). */
export function checkTree(root: unknown, limits: BodyLimits): void {
  const maxString = limits.maxStringLength;
  const values: unknown[] = [root];
  const depths: number[] = [0];
  const keys: string[] = [''];
  const inherited = hasEnumerableKeys(Object.prototype);
  while (values.length > 0) {
    const value = values.pop();
    const depth = (depths.pop() as number) + 1;
    const key = keys.pop() as string;
    if (typeof value === 'string') {
      if (maxString > 0 && value.length > maxString) throw errors.stringTooLong(maxString);
      if (key === 'arguments' && bracketDepth(value, limits.maxDepth) > limits.maxDepth) throw errors.argumentsTooDeep(limits.maxDepth);
      continue;
    }
    if (typeof value !== 'object' || value === null) continue;
    if (depth > limits.maxDepth) throw errors.bodyTooDeep(limits.maxDepth);
    if (Array.isArray(value)) {
      for (const item of value) {
        values.push(item);
        depths.push(depth);
        keys.push('');
      }
      continue;
    }
    const record = value as Record<string, unknown>;
    // for-in, not Object.keys: no array of keys per object (V8 reuses its enum cache). JSON.parse
    // objects inherit only from Object.prototype, so for-in adds keys only if that was polluted.
    for (const key in record) {
      if (inherited && !Object.hasOwn(record, key)) continue;
      if (key === '__proto__') throw errors.forbiddenKey('__proto__');
      const child = record[key];
      if (key === 'constructor' && typeof child === 'object' && child !== null && Object.hasOwn(child, 'prototype')) {
        throw errors.forbiddenKey('constructor.prototype');
      }
      if (maxString > 0 && key.length > maxString) throw errors.stringTooLong(maxString);
      values.push(child);
      depths.push(depth);
      keys.push(key);
    }
  }
}

function hasEnumerableKeys(object: object): boolean {
  for (const _key in object) return true;
  return false;
}
