// What is derived from a request object once and read more than once per request, kept on the
// object itself under a non-enumerable symbol (as api/raw-json.ts keeps raw text): spreads,
// JSON.stringify and deep comparisons do not see it, a copy has none, and it costs no WeakMap entry
// per request (ephemerons the garbage collector walks on every scavenge). Requests are never
// mutated, only copied, so what was derived from one stays true of it.

const slot: PropertyDescriptor = { value: undefined, configurable: true };

/** `derive(request)`, computed at the first call for this object under `key`; `derive` must not return undefined. */
export function derivedOnce<R extends object, T>(request: R, key: symbol, derive: (request: R) => T): T {
  const known = (request as { [key: symbol]: T | undefined })[key];
  if (known !== undefined) return known;
  const value = derive(request);
  if (Object.isExtensible(request)) {
    slot.value = value;
    Object.defineProperty(request, key, slot);
    slot.value = undefined;
  }
  return value;
}
