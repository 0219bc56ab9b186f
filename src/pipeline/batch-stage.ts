import { ITERATION_DONE } from '../providers/chunk-batches.js';

// One synchronous stage over a stream of batches (the chat path's normalize → record → time),
// with an end: a last batch, then asynchronous bookkeeping. Hand-written, not an async generator:
// a stream spends its life suspended in its layers, and each generator layer cost a generator
// object, its frame and promises per read. It behaves as this generator did, step for step:
//
//   try { for await (const batch of source) { const out = stage.batch(batch); if (out.length > 0) yield out; } }
//   finally { stage.closed(); }
//   const tail = stage.tail(); if (tail.length > 0) yield tail;
//   await stage.finish();

export interface BatchStage<T> {
  /** The batch to hand on for one source batch (may be empty: nothing is handed on). */
  batch(batch: T[]): T[];
  /** The source is over, whichever way (completed, failed, or the consumer stopped during it). */
  closed(): void;
  /** After the source completed: a last batch (may be empty). */
  tail(): T[];
  /** After the tail was taken (the consumer came back for more, or there was no tail). */
  finish(): Promise<void>;
}

export function staged<T>(source: AsyncIterable<T[]>, stage: BatchStage<T>): AsyncIterableIterator<T[]> {
  return new Staged(source, stage);
}

class Staged<T> implements AsyncIterableIterator<T[]> {
  private iterator: AsyncIterator<T[]> | undefined;
  /** start: nothing read; source: reading the source; tail: the tail was handed over; over. */
  private state: 'start' | 'source' | 'tail' | 'over' = 'start';

  constructor(
    private readonly source: AsyncIterable<T[]>,
    private readonly stage: BatchStage<T>,
  ) {}

  [Symbol.asyncIterator](): AsyncIterableIterator<T[]> {
    return this;
  }

  async next(): Promise<IteratorResult<T[]>> {
    if (this.state === 'over') return ITERATION_DONE;
    if (this.state === 'tail') {
      this.state = 'over';
      await this.stage.finish();
      return ITERATION_DONE;
    }
    this.state = 'source';
    const iterator = (this.iterator ??= this.source[Symbol.asyncIterator]());
    for (;;) {
      let read: IteratorResult<T[]>;
      try {
        read = await iterator.next();
      } catch (error) {
        this.state = 'over';
        this.stage.closed();
        throw error;
      }
      if (read.done) break;
      let out: T[];
      try {
        out = this.stage.batch(read.value);
      } catch (error) {
        // As a for-await loop left by an exception: the source is stopped (its own error ignored).
        this.state = 'over';
        await iterator.return?.().catch(() => undefined);
        this.stage.closed();
        throw error;
      }
      if (out.length > 0) return { done: false, value: out };
    }
    this.state = 'over';
    this.stage.closed();
    const tail = this.stage.tail();
    if (tail.length > 0) {
      this.state = 'tail';
      return { done: false, value: tail };
    }
    await this.stage.finish();
    return ITERATION_DONE;
  }

  /** Stopped by the consumer: the source is stopped first, then closed (as for-await then finally). */
  async return(): Promise<IteratorResult<T[]>> {
    const reading = this.state === 'source';
    this.state = 'over';
    if (!reading) return ITERATION_DONE;
    try {
      await this.iterator?.return?.();
    } finally {
      this.stage.closed();
    }
    return ITERATION_DONE;
  }
}
