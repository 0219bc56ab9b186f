// Runs `work` with the calls to `owner[name]` counted, the original restored after: for tests that
// hold a path to making no such call (Object.keys, a cache lookup). `calls()` reads the count so far.
export function withCallsCounted<T>(owner: object, name: string, work: (calls: () => number) => T): { result: T; calls: number } {
  const target = owner as Record<string, unknown>;
  const original = target[name];
  if (typeof original !== 'function') throw new TypeError(`${name} is not a function`);
  let calls = 0;
  target[name] = function (this: unknown, ...args: unknown[]): unknown {
    calls++;
    return original.apply(this, args) as unknown;
  };
  try {
    const result = work(() => calls);
    return { result, calls };
  } finally {
    target[name] = original;
  }
}
