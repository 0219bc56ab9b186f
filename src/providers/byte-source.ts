import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';

// Where the SSE reader and the error-text reader take an upstream body's bytes from. In production
// a stream's answer is read straight off undici's dispatcher (answer-stream.ts: no Readable, no
// events); readableSource adapts a Node stream (undici's request() body in tests, bench/stream-steps)
// to the same interface at the caller's edge, so the reader takes one kind of source.

/** An upstream body, read a batch of bytes at a time, pulled by its one reader. */
export interface ByteSource {
  /** Everything that came since the last read, or null when nothing is waiting. */
  read(): Buffer | null;
  /** undefined while the body goes on; null once it ended (read() may still hold its last bytes); else its error (nothing more to read). */
  readonly ended: Error | null | undefined;
  /** Resolves once read() has bytes or the body ended. */
  wait(): Promise<void>;
  /** The reader finished early ([DONE]): the rest is discarded and the connection kept when the rest is small, else closed. */
  finish(): void;
  /** The reader stopped (an error, the consumer gone): the request is aborted, its connection closed. */
  cancel(): void;
}

/** What finish() may discard beyond the bytes read before the connection is closed instead (as undici's dump limit was: its 64 KB high-water mark and 64 KB more). */
export const DUMP_SLACK = 2 * 65_536;

type Body = Dispatcher.ResponseData['body'];

/** A Node stream (undici's body, or any Readable of Buffers with undici's dump()) as a ByteSource. */
export function readableSource(body: Readable): ByteSource {
  return new ReadableSource(body as Body);
}

// Node's own iterator of a body read it this way (read(), then wait for 'readable' or the end),
// with its generator and per-stream end-of-stream closures; these listeners are shared functions
// that find the source on the body.
class ReadableSource implements ByteSource {
  private listening = false;
  /** How the body ended: undefined while it has not, null at its end, or its error. */
  private outcome: Error | null | undefined;
  private waiter: (() => void) | undefined;
  private bytesRead = 0;

  constructor(private readonly body: Body) {}

  get ended(): Error | null | undefined {
    return this.outcome;
  }

  read(): Buffer | null {
    if (!this.listening) this.listen();
    const chunk = this.body.destroyed ? null : (this.body.read() as Buffer | null);
    if (chunk !== null) this.bytesRead += chunk.length;
    return chunk;
  }

  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
  }

  finish(): void {
    this.unlisten();
    // dump's limit counts the whole body, read or buffered.
    this.body.dump({ limit: this.bytesRead + DUMP_SLACK }).catch(() => undefined);
  }

  cancel(): void {
    this.unlisten();
    if (this.body.destroyed) return;
    // undici emits RequestAbortedError on destroy(); nobody reads this body any more.
    this.body.on('error', () => undefined);
    this.body.destroy();
  }

  private listen(): void {
    this.listening = true;
    (this.body as SourceSlot)[SOURCE] = this;
    this.body.on('readable', onReadable).on('end', onEnd).on('error', onError).on('close', onClose);
    // A body closed before the first read ends (as it would have for the iterator's end-of-stream check).
    if (this.body.closed) this.bodyClosed();
  }

  private unlisten(): void {
    if (!this.listening) return;
    this.listening = false;
    this.body.off('readable', onReadable).off('end', onEnd).off('error', onError).off('close', onClose);
    (this.body as SourceSlot)[SOURCE] = undefined;
  }

  /** 'readable', or how the body ended (the first of its end, its error, its close). */
  wake(outcome?: Error | null): void {
    if (outcome !== undefined && this.outcome === undefined) this.outcome = outcome;
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  /** Closed without 'end': its error, or a premature close (as Node's end-of-stream check reports it). */
  bodyClosed(): void {
    this.wake(this.body.errored ?? (this.body.readableEnded ? null : prematureClose()));
  }
}

const SOURCE = Symbol('byte source');
interface SourceSlot {
  [SOURCE]?: ReadableSource;
}
function onReadable(this: Body): void {
  (this as SourceSlot)[SOURCE]?.wake();
}
function onEnd(this: Body): void {
  (this as SourceSlot)[SOURCE]?.wake(null);
}
function onError(this: Body, error: Error): void {
  (this as SourceSlot)[SOURCE]?.wake(error);
}
function onClose(this: Body): void {
  (this as SourceSlot)[SOURCE]?.bodyClosed();
}

function prematureClose(): Error {
  return Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' });
}
