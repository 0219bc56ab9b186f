// The exact JSON text an upstream object was parsed from. Chunks that need no change pass through
// the pipeline as the same objects (see toolcalls/normalize-stream.ts), so the SSE writer can relay
// the upstream's bytes instead of re-serializing them. Objects are treated as immutable: a step that
// changes one builds a new object, which has no raw text, so it is serialized afresh.

const raw = new WeakMap<object, string>();

export function withRawJson<T extends object>(value: T, text: string): T {
  raw.set(value, text);
  return value;
}

export function rawJsonOf(value: object): string | undefined {
  return raw.get(value);
}
