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
  inherited = hasEnumerableKeys(Object.prototype);
  return bytesOf(value, 0);
}

/** Whether Object.prototype has enumerable keys, which for-in would walk too (read per call). */
let inherited = false;

function hasEnumerableKeys(object: object): boolean {
  for (const _key in object) return true;
  return false;
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
  // for-in, not Object.keys: no array of keys per object. Own keys only, as approxBytes counts.
  const record = value as Record<string, unknown>;
  const plain = !inherited && Object.getPrototypeOf(record) === Object.prototype;
  for (const key in record) {
    if (!plain && !Object.hasOwn(record, key)) continue;
    total += SLOT_BYTES + key.length + bytesOf(record[key], depth + 1);
  }
  return total;
}
