import type { ChatChunk } from '../api/chat-types.js';

// A stream of chat chunks read in batches: every chunk the upstream delivered in one network read
// (up to the reader's batch cap). The pipeline's per-chunk work is synchronous, so handing a batch
// from layer to layer costs one async step per read instead of one per chunk and layer, and the
// client gets the batch in one write. The batch form travels beside the plain per-chunk one, so an
// adapter that reads chunk by chunk (or a consumer that wants chunks) needs no change.

const BATCHES = Symbol('chunk batches');

/** The end result of the stream layers' hand-written iterators (reader, settle-on-end, chat stage): one frozen object. */
export const ITERATION_DONE: IteratorReturnResult<undefined> = Object.freeze({ done: true, value: undefined });

export interface ChunkBatches extends AsyncIterable<ChatChunk> {
  readonly [BATCHES]: AsyncIterable<ChatChunk[]>;
}

/** Chunks that can also be read a batch at a time (one async step per batch). */
export function batchedChunks(batches: AsyncIterable<ChatChunk[]>): ChunkBatches {
  return new Batched(batches);
}

// A class, not an object literal with an arrow: no closure per stream.
class Batched implements ChunkBatches {
  readonly [BATCHES]: AsyncIterable<ChatChunk[]>;

  constructor(batches: AsyncIterable<ChatChunk[]>) {
    this[BATCHES] = batches;
  }

  [Symbol.asyncIterator](): AsyncIterator<ChatChunk> {
    return flatten(this[BATCHES])[Symbol.asyncIterator]();
  }
}

/** The batch form of any chunk stream: its own batches, or one batch per chunk. */
export function batchesOf(chunks: AsyncIterable<ChatChunk>): AsyncIterable<ChatChunk[]> {
  const own = (chunks as Partial<ChunkBatches>)[BATCHES];
  return own ?? singletons(chunks);
}

async function* singletons(chunks: AsyncIterable<ChatChunk>): AsyncGenerator<ChatChunk[]> {
  for await (const chunk of chunks) yield [chunk];
}

/** Chunk by chunk, for consumers that read one at a time. */
export async function* flatten<T>(batches: AsyncIterable<T[]>): AsyncGenerator<T> {
  for await (const batch of batches) yield* batch;
}
