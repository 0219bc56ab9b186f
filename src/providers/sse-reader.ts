import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type EventSourceParser, type ParseError } from 'eventsource-parser';
import { DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_STREAM_BYTES } from '../config/schema.js';
import { errors } from '../errors.js';
import type { ProviderSettings, SseEvent } from './types.js';
import { ITERATION_DONE } from './chunk-batches.js';
import type { ByteSource } from './byte-source.js';

// An upstream that sends a long answer in one burst hands us thousands of events in one chunk; the
// consumer's work per event runs synchronously between them. Every SLICE_CHECK events the reader checks
// how long it has held the event loop and, past SLICE_MS, lets other requests run (setImmediate), so one
// stream never stalls the gateway for the length of its burst. The batch reader hands over at most
// SLICE_CHECK events at a time for the same reason.
const SLICE_CHECK = 32;
const SLICE_MS = 8;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export type { SseEvent } from './types.js';

/** Whose stream it is (named in errors), its cap on one incomplete event and on the whole body. */
export type SseLimits = Pick<ProviderSettings, 'name' | 'maxEventBytes' | 'maxStreamBytes'>;

/**
 * Reads an upstream SSE body event by event. Yields as soon as an event is complete; no
 * whole-stream buffering. Stops at `data: [DONE]`. Transport errors are passed to `mapError`.
 */
export async function* readSse(body: ByteSource, mapError: (error: unknown) => Error, limits: SseLimits): AsyncGenerator<SseEvent> {
  for await (const batch of readSseBatches(body, mapError, (event) => event, limits)) yield* batch;
}

/**
 * Reads an upstream SSE body a network read at a time: the events each read completed, mapped by
 * `map` (which may throw: its errors pass through as they are), in batches of at most SLICE_CHECK.
 * Stops at `data: [DONE]`. Transport errors are passed to `mapError`. An event (or line) still
 * incomplete past `limits.maxEventBytes` ends the stream with a 502 upstream_bad_response, after
 * the events before it; so does a body past `limits.maxStreamBytes` in all (the read that crosses it
 * is not parsed).
 */
export function readSseBatches<T>(body: ByteSource, mapError: (error: unknown) => Error, map: (event: SseEvent) => T, limits: SseLimits): AsyncIterableIterator<T[]> {
  return new SseBatchReader(body, mapError, map, limits);
}

// A hand-written iterator, not an async generator: a stream spends its life suspended in this
// reader, and each generator layer cost a generator object, its frame and promises per read. It
// behaves as the generator did, step for step: the body is read all it has at a time (nextRead);
// after a batch was handed over, the time slice is checked before going on; [DONE] or the body's
// end finishes the body (the rest discarded, the connection kept), anything else (an error, the
// consumer stopping) cancels it.
class SseBatchReader<T> implements AsyncIterableIterator<T[]> {
  private readonly parser: EventSourceParser;
  // StringDecoder, not TextDecoder: the same UTF-8 decoding (a character split across reads is
  // joined) at a third of the set-up cost per stream; the leading BOM TextDecoder drops is dropped here.
  private readonly decoder = new StringDecoder('utf8');
  private readonly maxEventBytes: number;
  /** What the parser completed and nobody took yet. */
  private parsed: SseEvent[] = [];
  /** The current read's events and how many were handed over. */
  private events: SseEvent[] = NO_EVENTS;
  private at = 0;
  /** A mapping error held back while the events before it are handed over. */
  private failure: { error: unknown } | undefined;
  private overflowed = false;
  /** Body bytes left before maxStreamBytes; below zero the stream is over its cap. */
  private streamBytesLeft: number;
  private first = true;
  private sliceStart = 0;
  /** A batch was handed over: the time slice is checked when the consumer comes back. */
  private handedOver = false;
  private sawDone = false;
  /** The body ended: what the parser still held is being handed over. */
  private ending = false;
  /** [DONE] came or the body ended: the rest is dumped and the connection kept. */
  private finished = false;
  private state: 'start' | 'reading' | 'over' = 'start';

  constructor(
    private readonly body: ByteSource,
    private readonly mapError: (error: unknown) => Error,
    private readonly map: (event: SseEvent) => T,
    private readonly limits: SseLimits,
  ) {
    this.maxEventBytes = limits.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
    this.streamBytesLeft = limits.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
    this.parser = createParser({
      onEvent: (message: EventSourceMessage) => {
        this.parsed.push(message); // an SseEvent as it is ({ id, event, data }): no copy per event
      },
      // The parser checks once per feed what it holds (the incomplete line and the event's data so far),
      // in UTF-16 units: never more than the bytes they came from, and at most twice as many bytes of memory.
      maxBufferSize: this.maxEventBytes,
      onError: (error: ParseError) => {
        if (error.type === 'max-buffer-size-exceeded') this.overflowed = true;
      },
    });
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<T[]> {
    return this;
  }

  async next(): Promise<IteratorResult<T[]>> {
    if (this.state === 'over') return ITERATION_DONE;
    this.state = 'reading';
    try {
      if (this.handedOver) {
        this.handedOver = false;
        if (!this.ending && performance.now() - this.sliceStart > SLICE_MS) {
          await nextTurn();
          this.sliceStart = performance.now();
        }
      }
      for (;;) {
        if (this.failure) throw this.failure.error;
        const batch = this.at < this.events.length && !this.sawDone ? this.take() : undefined;
        if (batch !== undefined) {
          this.handedOver = true;
          return { done: false, value: batch };
        }
        if (this.sawDone || this.ending) {
          this.finished = true;
          this.close();
          return ITERATION_DONE;
        }
        // After the events this read completed: they reach the consumer first, as before a bad event.
        if (this.overflowed) throw errors.upstreamBadResponse(this.limits.name, `a stream event larger than ${this.maxEventBytes} bytes (providers.${this.limits.name}.maxEventBytes)`);
        if (this.streamBytesLeft < 0) {
          const cap = this.limits.maxStreamBytes ?? DEFAULT_MAX_STREAM_BYTES;
          throw errors.upstreamBadResponse(this.limits.name, `a stream longer than ${cap} bytes (providers.${this.limits.name}.maxStreamBytes)`);
        }
        const read = await this.nextRead();
        if (read === null) {
          this.ending = true;
          this.finished = true;
          this.parser.feed(this.decoder.end());
          this.parser.feed('\n\n'); // flush an event the upstream did not terminate
        } else {
          this.sliceStart = performance.now();
          this.feed(read);
        }
        this.events = this.parsed;
        this.parsed = [];
        this.at = 0;
      }
    } catch (error) {
      this.close();
      throw this.mapError(error);
    }
  }

  async return(): Promise<IteratorResult<T[]>> {
    // Like a generator: one that never started has nothing to release.
    if (this.state === 'start') this.state = 'over';
    if (this.state === 'over') return ITERATION_DONE;
    this.close();
    return ITERATION_DONE;
  }

  /** The body's next read (all it has buffered), or null at its end; rejects with its error. */
  private async nextRead(): Promise<Buffer | null> {
    for (;;) {
      const chunk = this.body.read();
      if (chunk !== null) return chunk;
      const ended = this.body.ended;
      if (ended === null) return null;
      if (ended !== undefined) throw ended;
      await this.body.wait();
    }
  }

  private feed(bytes: Buffer): void {
    this.streamBytesLeft -= bytes.length;
    if (this.streamBytesLeft < 0) return;
    let text = this.decoder.write(bytes);
    if (this.first && text !== '') {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    this.parser.feed(text);
  }

  /** The next batch of the current read's events, mapped; undefined at [DONE] with nothing before it. */
  private take(): T[] | undefined {
    const events = this.events;
    // The usual read (a paced upstream: one event; a burst: up to SLICE_CHECK) is handed over whole,
    // as its own array mapped in place: no second array per read.
    if (this.at === 0 && events.length <= SLICE_CHECK) return this.takeWhole(events);
    const batch: T[] = [];
    while (this.at < events.length && batch.length < SLICE_CHECK) {
      const event = events[this.at];
      if (event.data === '[DONE]') {
        this.sawDone = true;
        break;
      }
      try {
        batch.push(this.map(event));
      } catch (error) {
        // What came before the bad event still reaches the consumer, then the error.
        if (batch.length === 0) throw error;
        this.failure = { error };
        break;
      }
      this.at++;
    }
    // A reader waiting for its next read keeps no event of the previous one (they are slices of it).
    if (this.at >= events.length || this.sawDone || this.failure) this.events = NO_EVENTS;
    return batch.length > 0 ? batch : undefined;
  }

  /** take() for a whole read: the same steps, its events replaced by their mapped values in the same array. */
  private takeWhole(events: SseEvent[]): T[] | undefined {
    const out = events as unknown[] as T[];
    let count = 0;
    while (count < events.length) {
      const event = events[count];
      if (event.data === '[DONE]') {
        this.sawDone = true;
        break;
      }
      let mapped: T;
      try {
        mapped = this.map(event);
      } catch (error) {
        if (count === 0) {
          this.events = NO_EVENTS;
          throw error;
        }
        this.failure = { error };
        break;
      }
      out[count++] = mapped;
    }
    this.at = count;
    // The array goes to the consumer: the reader keeps neither it nor the read's events.
    this.events = NO_EVENTS;
    if (count === 0) return undefined;
    out.length = count;
    return out;
  }

  /** The end of the iteration, whichever way: a finished stream keeps its pooled connection, any other is released now. */
  private close(): void {
    if (this.state === 'over') return;
    this.state = 'over';
    this.events = NO_EVENTS;
    if (this.finished) this.body.finish();
    else this.body.cancel();
  }
}

const NO_EVENTS: SseEvent[] = [];

