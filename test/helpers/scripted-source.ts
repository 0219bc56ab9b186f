// A scripted async source and consumer for comparing a hand-written stream layer with the async
// generator it replaces: both run the same script and must leave the same log.

export interface SourceScript<T> {
  items: T[];
  /** next() rejects at this index instead of giving the item. */
  failAt?: number;
  /** return() rejects. */
  returnFails?: boolean;
  /** No return() method at all. */
  noReturn?: boolean;
}

export function scriptedSource<T>(script: SourceScript<T>, log: string[]): AsyncIterable<T> {
  return {
    [Symbol.asyncIterator]() {
      log.push('source: open');
      let index = 0;
      const iterator: AsyncIterator<T> = {
        async next() {
          await Promise.resolve();
          if (index === script.failAt) {
            index++;
            log.push('source: next → error');
            throw new Error('source failed');
          }
          if (index >= script.items.length) {
            log.push('source: next → done');
            return { done: true, value: undefined };
          }
          log.push(`source: next → ${JSON.stringify(script.items[index])}`);
          return { done: false, value: script.items[index++] };
        },
      };
      if (!script.noReturn) {
        iterator.return = async () => {
          await Promise.resolve();
          log.push('source: return');
          if (script.returnFails) throw new Error('return failed');
          return { done: true, value: undefined };
        };
      }
      return iterator;
    },
  };
}

/** Reads `reads` items (all when undefined), then stops with return() when it read fewer than all. */
export async function consume<T>(items: AsyncIterable<T>, reads: number | undefined, log: string[]): Promise<void> {
  const iterator = items[Symbol.asyncIterator]();
  let done = false;
  for (let i = 0; reads === undefined || i < reads; i++) {
    try {
      const next = await iterator.next();
      log.push(next.done ? 'consumer: done' : `consumer: got ${JSON.stringify(next.value)}`);
      if (next.done) {
        done = true;
        break;
      }
    } catch (error) {
      log.push(`consumer: error ${(error as Error).message}`);
      done = true;
      break;
    }
  }
  if (!done) {
    try {
      const last = await iterator.return?.();
      log.push(`consumer: stopped (${last?.done === true ? 'done' : 'not done'})`);
    } catch (error) {
      log.push(`consumer: stop error ${(error as Error).message}`);
    }
  }
  // Reading on after the end gives done.
  const after = await iterator.next().catch((error: unknown) => ({ done: `error ${(error as Error).message}` }));
  log.push(`consumer: after end ${String(after.done)}`);
}

/** Every script of the family: lengths 0–3, a failure at each place, return() that fails or is missing. */
export function* sourceScripts(): Generator<SourceScript<number>> {
  for (let length = 0; length <= 3; length++) {
    const items = Array.from({ length }, (_, i) => i + 1);
    for (const failAt of [undefined, ...items.keys(), length]) {
      yield { items, failAt };
      yield { items, failAt, returnFails: true };
      yield { items, failAt, noReturn: true };
    }
  }
}
