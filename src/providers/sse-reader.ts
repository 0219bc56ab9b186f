import { StringDecoder } from 'node:string_decoder';
import { createParser, type EventSourceMessage, type ParseError } from 'eventsource-parser';
import type { Dispatcher } from 'undici';
import { DEFAULT_MAX_EVENT_BYTES } from '../config/schema.js';
import { errors } from '../errors.js';
import type { ProviderSettings, SseEvent } from './types.js';

// An upstream that sends a long answer in one burst hands us thousands of events in one chunk; the
// consumer's work per event runs synchronously between them. Every SLICE_CHECK events the reader checks
// how long it has held the event loop and, past SLICE_MS, lets other requests run (setImmediate), so one
// stream never stalls the gateway for the length of its burst. The batch reader hands over at most
// SLICE_CHECK events at a time for the same reason.
const SLICE_CHECK = 32;
const SLICE_MS = 8;
/** What dump may read beyond the bytes consumed: the body's buffer (64 KB high-water mark) and 64 KB more. */
const DUMP_SLACK = 2 * 65_536;
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export type { SseEvent } from './types.js';

type Body = Dispatcher.ResponseData['body'];
/** Whose stream it is (named in errors) and its cap on one incomplete event. */
export type SseLimits = Pick<ProviderSettings, 'name' | 'maxEventBytes'>;

/**
 * Reads an upstream SSE body event by event. Yields as soon as an event is complete; no
 * whole-stream buffering. Stops at `data: [DONE]`. Transport errors are passed to `mapError`.
 */
export async function* readSse(body: Body, mapError: (error: unknown) => Error, limits: SseLimits): AsyncGenerator<SseEvent> {
  for await (const batch of readSseBatches(body, mapError, (event) => event, limits)) yield* batch;
}

/**
 * Reads an upstream SSE body a network read at a time: the events each read completed, mapped by
 * `map` (which may throw: its errors pass through as they are), in batches of at most SLICE_CHECK.
 * Stops at `data: [DONE]`. Transport errors are passed to `mapError`. An event (or line) still
 * incomplete past `limits.maxEventBytes` ends the stream with a 502 upstream_bad_response, after
 * the events before it.
 */
export async function* readSseBatches<T>(body: Body, mapError: (error: unknown) => Error, map: (event: SseEvent) => T, limits: SseLimits): AsyncGenerator<T[]> {
  let pending: SseEvent[] = [];
  let overflowed = false;
  const maxEventBytes = limits.maxEventBytes ?? DEFAULT_MAX_EVENT_BYTES;
  const parser = createParser({
    onEvent(message: EventSourceMessage) {
      pending.push(message); // an SseEvent as it is ({ id, event, data }): no copy per event
    },
    // The parser checks once per feed what it holds (the incomplete line and the event's data so far),
    // in UTF-16 units: never more than the bytes they came from, and at most twice as many bytes of memory.
    maxBufferSize: maxEventBytes,
    onError(error: ParseError) {
      if (error.type === 'max-buffer-size-exceeded') overflowed = true;
    },
  });
  // StringDecoder, not TextDecoder: the same UTF-8 decoding (a character split across reads is
  // joined) at a third of the set-up cost per stream; the leading BOM TextDecoder drops is dropped here.
  const decoder = new StringDecoder('utf8');
  let first = true;
  let finished = false;
  let bytesRead = 0;
  // Maps what the parser completed into batches; true once [DONE] came.
  const drain = function* (events: SseEvent[]): Generator<T[], boolean> {
    let batch: T[] = [];
    for (const event of events) {
      if (event.data === '[DONE]') {
        if (batch.length > 0) yield batch;
        return true;
      }
      let mapped: T;
      try {
        mapped = map(event);
      } catch (error) {
        // What came before the bad event still reaches the consumer, then the error.
        if (batch.length > 0) yield batch;
        throw error;
      }
      batch.push(mapped);
      if (batch.length === SLICE_CHECK) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length > 0) yield batch;
    return false;
  };
  try {
    // destroyOnReturn: false — returning at [DONE] must not destroy the body: Node would build an
    // AbortError (with a stack trace) per stream, and undici may then drop the pooled connection.
    // `finally` decides: dump the rest (connection kept) or destroy.
    for await (const bytes of body.iterator({ destroyOnReturn: false })) {
      let sliceStart = performance.now();
      bytesRead += (bytes as Buffer).length;
      let text = decoder.write(bytes as Buffer);
      if (first && text !== '') {
        first = false;
        if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      }
      parser.feed(text);
      // A suspended generator keeps its locals: dropped here, or a stream waiting for its next read
      // kept the whole previous one (the text, and the events that are slices of it).
      text = '';
      let batches: Generator<T[], boolean> | undefined = drain(pending);
      pending = [];
      for (let next = batches.next(); ; next = batches.next()) {
        if (next.done) {
          if (next.value) {
            finished = true;
            return;
          }
          break;
        }
        yield next.value;
        if (performance.now() - sliceStart > SLICE_MS) {
          await nextTurn();
          sliceStart = performance.now();
        }
      }
      batches = undefined;
      // After the events this read completed: they reach the consumer first, as before a bad event.
      if (overflowed) throw errors.upstreamBadResponse(limits.name, `a stream event larger than ${maxEventBytes} bytes (providers.${limits.name}.maxEventBytes)`);
    }
    finished = true;
    parser.feed(decoder.end());
    parser.feed('\n\n'); // flush an event the upstream did not terminate
    yield* drain(pending);
  } catch (error) {
    throw mapError(error);
  } finally {
    // A finished stream keeps its pooled connection (dump reads the rest, up to 64 KB more); an
    // abandoned one (client gone, error) must release the upstream socket at once. dump's limit
    // counts the whole body, read or buffered (at most the body's 64 KB high-water mark beyond what
    // we read): a fixed 64 KB destroyed the connection of every answer longer than that.
    if (finished) body.dump({ limit: bytesRead + DUMP_SLACK }).catch(() => undefined);
    else if (!body.destroyed) {
      // undici emits RequestAbortedError on destroy(); nobody reads this body any more.
      body.on('error', () => undefined);
      body.destroy();
    }
  }
}
