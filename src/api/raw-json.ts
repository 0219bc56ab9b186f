// The exact JSON text an upstream object was parsed from. Chunks that need no change pass through
// the pipeline as the same objects (see toolcalls/normalize-stream.ts), so the SSE writer can relay
// the upstream's bytes instead of re-serializing them. Objects are treated as immutable: a step that
// changes one builds a new object, which has no raw text, so it is serialized afresh.
// The text is a non-enumerable symbol property, not a WeakMap entry: spreads, Object.assign,
// JSON.stringify and deep comparisons do not see it (a copy has no raw text, as before), and it
// costs no ephemeron-table insert per streamed event (the WeakMap was ~10% of a burst stream's CPU).

const RAW = Symbol('raw JSON');

/** One descriptor for every call (defineProperty reads it, does not keep it): no object per event. */
const descriptor: PropertyDescriptor = { value: undefined, configurable: true };

export function withRawJson<T extends object>(value: T, text: string): T {
  descriptor.value = text;
  Object.defineProperty(value, RAW, descriptor);
  descriptor.value = undefined;
  return value;
}

export function rawJsonOf(value: object): string | undefined {
  return (value as { [RAW]?: string })[RAW];
}

/** For an object changed in place (the rare step that does): it is serialized afresh from then on. */
export function forgetRawJson(value: object): void {
  delete (value as { [RAW]?: string })[RAW];
}
