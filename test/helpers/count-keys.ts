// Runs `work` with Object.keys counted: for tests that hold a walk to building no key arrays.
export function withObjectKeysCounted<T>(work: () => T): { result: T; calls: number } {
  const keys = Object.keys;
  let calls = 0;
  Object.keys = ((object: object) => {
    calls++;
    return keys(object);
  }) as typeof Object.keys;
  try {
    return { result: work(), calls };
  } finally {
    Object.keys = keys;
  }
}
