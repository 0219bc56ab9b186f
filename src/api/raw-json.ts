// The exact JSON text an upstream object was parsed from. Chunks that need no change pass through
// the pipeline as the same objects (see toolcalls/normalize-stream.ts), so the SSE writer can relay
// the upstream's bytes instead of re-serializing them. Objects are treated as immutable: a step that
// changes one builds a new object, which has no raw text, so it is serialized afresh. The text sits
// in a non-enumerable symbol property: spreads, Object.assign and JSON.stringify never copy it (a
// copy made to change a chunk has no raw text), and it costs a third of a WeakMap entry per event.

const RAW = Symbol('upstream JSON text');

export function withRawJson<T extends object>(value: T, text: string): T {
  Object.defineProperty(value, RAW, { value: text, configurable: true });
  return value;
}

export function rawJsonOf(value: object): string | undefined {
  return (value as { [RAW]?: string })[RAW];
}
