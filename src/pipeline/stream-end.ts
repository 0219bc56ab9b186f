import { ITERATION_DONE } from '../providers/chunk-batches.js';

// A stream's items passed through unchanged, with a hook for how the stream ended. Hand-written, not
// an async generator with try/catch/finally around `yield*`: a stream spends its life suspended in
// its layers, and each generator layer cost a generator object, its frame and promises per read.
// It behaves as that generator did, step for step (see each method).

export interface EndHooks {
  /** The source completed (the consumer read it to its end). */
  completed(): void;
  /** The source failed (or stopping it did): returns what the consumer gets thrown. */
  failed(error: unknown): unknown;
  /** The consumer stopped early (return() after the first next()). */
  stopped(): void;
}

/** `items` with exactly one of `hooks` called when the iteration ends (none if it never started). */
export function withEndHooks<T>(items: AsyncIterable<T>, hooks: EndHooks): AsyncIterableIterator<T> {
  return new EndHooked(items, hooks);
}

class EndHooked<T> implements AsyncIterableIterator<T> {
  private source: AsyncIterator<T> | undefined;
  private state: 'start' | 'running' | 'over' = 'start';

  constructor(
    private readonly items: AsyncIterable<T>,
    private readonly hooks: EndHooks,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<T> {
    return this;
  }

  async next(): Promise<IteratorResult<T>> {
    if (this.state === 'over') return ITERATION_DONE;
    this.state = 'running';
    this.source ??= this.items[Symbol.asyncIterator]();
    try {
      const result = await this.source.next();
      if (!result.done) return result;
      this.state = 'over';
      this.hooks.completed();
      return ITERATION_DONE;
    } catch (error) {
      // A throwing `completed` is a failure too, as it was inside the generator's try.
      this.state = 'over';
      throw this.hooks.failed(error);
    }
  }

  /** Stops the source first (as `yield*` does), then `stopped`; a generator that never started just ends. */
  async return(): Promise<IteratorResult<T>> {
    if (this.state !== 'running') {
      this.state = 'over';
      return ITERATION_DONE;
    }
    this.state = 'over';
    try {
      await this.source?.return?.();
    } catch (error) {
      throw this.hooks.failed(error);
    }
    this.hooks.stopped();
    return ITERATION_DONE;
  }
}
