// The exact JSON text an upstream object was parsed from. Chunks that need no change pass through
// the pipeline as the same objects (see toolcalls/normalize-stream.ts), so the SSE writer can relay
// the upstream's bytes instead of re-serializing them. Objects are treated as immutable: a step that
// changes one builds a new object, which has no raw text, so it is serialized afresh.
// The text is a private class field stamped onto the object (a base constructor that returns the
// object it is given): spreads, Object.assign, JSON.stringify, Reflect.ownKeys and deep comparisons
// do not see it (a copy has no raw text). Not a WeakMap entry (an ephemeron-table insert per streamed
// event was ~10% of a burst stream's CPU) nor a non-enumerable symbol (Object.defineProperty is a
// runtime call, ~0.15 µs per event; a private field is an inline-cached store, ~30× cheaper).

/** Its constructor returns its argument, so `new RawText(object, …)` adds the private field to that object. */
class Stamped {
  constructor(target: object) {
    return target;
  }
}

class RawText extends Stamped {
  #text: string | undefined;

  private constructor(target: object, text: string) {
    super(target);
    this.#text = text;
  }

  static set(target: object, text: string | undefined): void {
    if (#text in target) (target as RawText).#text = text;
    else if (text !== undefined) new RawText(target, text);
  }

  static get(target: object): string | undefined {
    return #text in target ? (target as RawText).#text : undefined;
  }
}

export function withRawJson<T extends object>(value: T, text: string): T {
  RawText.set(value, text);
  return value;
}

export function rawJsonOf(value: object): string | undefined {
  return RawText.get(value);
}

/** For an object changed in place (the rare step that does): it is serialized afresh from then on. */
export function forgetRawJson(value: object): void {
  RawText.set(value, undefined);
}
