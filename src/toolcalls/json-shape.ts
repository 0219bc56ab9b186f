// Whether a value serializes to a JSON text already seen, without serializing it: the text is kept
// as a shape (objects with their keys in order beside their values), and a value is compared with
// it in one walk that stops at the first difference and allocates nothing. The argument validators
// (arguments.ts) find a request's new schema objects this way.

/** A JSON value as sameJson reads it: objects keep their keys in order beside their values. */
export type JsonShape = string | number | boolean | null | ShapeArray | ShapeObject;
class ShapeArray {
  constructor(readonly items: JsonShape[]) {}
}
class ShapeObject {
  constructor(
    readonly keys: string[],
    readonly values: JsonShape[],
  ) {}
}

/** The shape of a JSON text (as JSON.parse reads it). */
export function jsonShape(text: string): JsonShape {
  const build = (value: unknown): JsonShape => {
    if (Array.isArray(value)) return new ShapeArray(value.map(build));
    if (typeof value === 'object' && value !== null) {
      const keys = Object.keys(value);
      return new ShapeObject(keys, keys.map((key) => build((value as Record<string, unknown>)[key])));
    }
    return value as JsonShape;
  };
  return build(JSON.parse(text));
}

/**
 * Whether `value` serializes to the JSON text `shape` was built from: the same keys in the same
 * order, the same strings, numbers and literals. Anything JSON.stringify would treat specially
 * (undefined, functions, toJSON, non-finite numbers, class instances, an inherited key) answers
 * false, and the caller serializes instead. Walks the nesting with an explicit stack.
 */
export function sameJson(value: unknown, shape: JsonShape): boolean {
  // The walk's stacks are reused from call to call: nothing allocated once they have grown. A
  // getter on the value could call back in: that inner walk gets stacks of its own.
  if (walking) return new SameWalk().run(value, shape);
  walking = true;
  try {
    return sharedWalk.run(value, shape);
  } finally {
    walking = false;
  }
}

/** sameJson's walk: two stacks used by index (truncating an array would free its store), cleared on the way out. */
class SameWalk {
  private readonly values: unknown[] = [];
  private readonly shapes: JsonShape[] = [];
  private top = 0;

  run(value: unknown, shape: JsonShape): boolean {
    this.push(value, shape);
    try {
      return this.walk();
    } finally {
      // What is left after an early answer: no client object stays referenced.
      for (let i = 0; i < this.top; i++) {
        this.values[i] = undefined;
        this.shapes[i] = null;
      }
      this.top = 0;
    }
  }

  private push(value: unknown, shape: JsonShape): void {
    this.values[this.top] = value;
    this.shapes[this.top] = shape;
    this.top++;
  }

  private walk(): boolean {
    const { values, shapes } = this;
    while (this.top > 0) {
      const at = --this.top;
      const a = values[at];
      const b = shapes[at];
      values[at] = undefined;
      shapes[at] = null;
      if (b instanceof ShapeObject) {
        if (typeof a !== 'object' || a === null || Array.isArray(a)) return false;
        const prototype: unknown = Object.getPrototypeOf(a);
        if (prototype !== Object.prototype && prototype !== null) return false;
        const record = a as Record<string, unknown>;
        if ('toJSON' in record) return false;
        let index = 0;
        for (const key in record) {
          if (index >= b.keys.length || b.keys[index] !== key) return false;
          this.push(record[key], b.values[index]);
          index++;
        }
        if (index !== b.keys.length) return false;
      } else if (b instanceof ShapeArray) {
        if (!Array.isArray(a) || a.length !== b.items.length) return false;
        for (let i = 0; i < a.length; i++) this.push(a[i], b.items[i]);
      } else if (a !== b) {
        return false;
      }
    }
    return true;
  }
}

let walking = false;
const sharedWalk = new SameWalk();
