import { approxBytes, stringBytes } from '../state/budget.js';

// approxBytes (state/budget.ts) of what the ledger stores, without its generic walk's garbage (a
// [key, value] pair per field and a stack): the ledger sizes every tool-calling answer it records,
// on the request path. The same number by construction (the same costs per object, array, field
// and string, summed over the same values; test/ledger/entry-bytes.test.ts holds the two
// together). A value nested deeper than WALK_DEPTH (an upstream's odd extra field) is handed to
// approxBytes itself, which has no recursion to overflow.

const OBJECT_BYTES = 64;
const SLOT_BYTES = 16;
const WALK_DEPTH = 16;

/** approxBytes(value), the same number. */
export function entryBytes(value: unknown): number {
  return bytesOf(value, 0);
}

function bytesOf(value: unknown, depth: number): number {
  if (typeof value === 'string') return stringBytes(value);
  if (typeof value !== 'object' || value === null) return 0;
  if (depth === WALK_DEPTH) return approxBytes(value);
  if (Array.isArray(value)) {
    let total = OBJECT_BYTES + value.length * SLOT_BYTES;
    for (let i = 0; i < value.length; i++) total += bytesOf(value[i], depth + 1);
    return total;
  }
  let total = OBJECT_BYTES;
  const keys = Object.keys(value);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    total += SLOT_BYTES + key.length + bytesOf((value as Record<string, unknown>)[key], depth + 1);
  }
  return total;
}
