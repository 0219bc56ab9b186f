import type { Dispatcher } from 'undici';
import type { AbortSignalLike } from '../client-abort.js';
import { AnswerFailure, abortReason } from './answer-text.js';
import { DUMP_SLACK, type ByteSource } from './byte-source.js';
import { parseHeaders, undiciErrors } from './undici-parts.js';

// A streamed answer read straight off undici's dispatcher. undici's request() built, per stream, an
// AsyncResource handler, a Readable body (64 KB high-water mark) and its events, which the SSE
// reader then listened to; this handler resolves with the status and headers and hands the body's
// bytes to the reader itself (it is the reader's ByteSource). Backpressure as the Readable's: past
// HIGH_WATER unread bytes the parser is paused (onData returns false; undici's idle timer does not
// run while paused) until the reader takes them. Errors before the status reject (an AnswerFailure,
// as answer-text.ts's); after it, they end the body and reach the reader.

/** Unread bytes past which the upstream is paused (the Readable's high-water mark). */
const HIGH_WATER = 65_536;

export interface StreamAnswer {
  status: number;
  /** For a status < 400 only content-type and content-length (all a stream's answer is asked for); all of them otherwise. */
  headers: Record<string, string | string[] | undefined>;
  body: ByteSource;
}

type Abort = (reason?: Error) => void;

/** undici's legacy handler interface (the one its own request() uses), and the body's ByteSource. */
class AnswerStreamHandler implements ByteSource {
  ended: Error | null | undefined;
  private abort: Abort | undefined;
  private resume: (() => void) | undefined;
  private paused = false;
  private started = false;
  private settled = false;
  /** Unread chunks (usually one) and their bytes. */
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Bytes taken by the reader, and what the body declared. */
  private taken = 0;
  private contentLength = -1;
  /** After finish(): the rest is discarded up to this many body bytes in all, else the request is aborted. */
  private discardUpTo = -1;
  private received = 0;
  private waiter: (() => void) | undefined;
  private readonly onAbort = (): void => this.stop(abortReason(this.signal));

  constructor(
    private readonly signal: AbortSignalLike,
    private readonly resolve: (answer: StreamAnswer) => void,
    private readonly reject: (failure: AnswerFailure) => void,
  ) {
    if (!signal.aborted) signal.addEventListener('abort', this.onAbort);
  }

  onConnect(abort: Abort): void {
    this.abort = abort;
    if (this.signal.aborted) abort(abortReason(this.signal));
  }

  onHeaders(status: number, rawHeaders: Buffer[], resume: () => void): boolean {
    if (status < 200) return true; // informational: the answer comes after it
    this.started = true;
    this.resume = resume;
    const headers = status >= 400 ? (parseHeaders(rawHeaders) as StreamAnswer['headers']) : bodyHeaders(rawHeaders);
    const length = headers['content-length'];
    if (typeof length === 'string') this.contentLength = Number(length);
    this.resolve({ status, headers, body: this });
    return true;
  }

  onData(chunk: Buffer): boolean {
    this.received += chunk.length;
    if (this.discardUpTo >= 0) {
      if (this.received <= this.discardUpTo) return true;
      this.abort?.(new undiciErrors.RequestAbortedError());
      return false;
    }
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    this.wake();
    if (this.buffered < HIGH_WATER) return true;
    this.paused = true;
    return false;
  }

  onComplete(): void {
    this.end(null);
  }

  onError(error: Error): void {
    if (!this.started) {
      if (this.settled) return;
      this.done();
      this.reject(new AnswerFailure(error, false));
      return;
    }
    // As a destroyed Readable: what was not read yet is gone.
    this.chunks = [];
    this.buffered = 0;
    this.end(error);
  }

  read(): Buffer | null {
    const buffered = this.buffered;
    if (buffered === 0) return null;
    const chunks = this.chunks;
    const bytes = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, buffered);
    this.chunks = [];
    this.buffered = 0;
    this.taken += buffered;
    this.continue();
    return bytes;
  }

  wait(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.waiter = resolve;
    });
  }

  finish(): void {
    if (this.ended !== undefined) return;
    this.chunks = [];
    this.buffered = 0;
    // As undici's dump(limit): the whole body may be at most what was read and DUMP_SLACK more.
    const limit = this.taken + DUMP_SLACK;
    if (this.received > limit || this.contentLength > limit) {
      this.stop(new undiciErrors.RequestAbortedError());
      return;
    }
    this.discardUpTo = limit;
    this.continue();
  }

  cancel(): void {
    this.chunks = [];
    this.buffered = 0;
    if (this.ended === undefined) this.stop(new undiciErrors.RequestAbortedError());
  }

  /** A paused upstream goes on (never from inside undici's parser: the reader runs in its own turn). */
  private continue(): void {
    if (!this.paused || this.ended !== undefined) return;
    this.paused = false;
    this.resume?.();
  }

  private end(outcome: Error | null): void {
    if (this.ended !== undefined) return;
    this.ended = outcome;
    this.done();
    this.wake();
  }

  private wake(): void {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.();
  }

  private stop(reason: Error): void {
    if (this.abort) this.abort(reason);
    else if (!this.settled) this.onError(reason);
  }

  private done(): void {
    this.settled = true;
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

/** The two headers a stream's answer is read with, as undici's parseHeaders gives them, without parsing the rest. */
function bodyHeaders(rawHeaders: Array<Buffer | string>): StreamAnswer['headers'] {
  const headers: StreamAnswer['headers'] = {};
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i];
    // Only names as long as 'content-type' (12) or 'content-length' (14) are decoded.
    if (name.length !== 12 && name.length !== 14) continue;
    const lower = latin1(name).toLowerCase();
    if (lower !== 'content-type' && lower !== 'content-length') continue;
    const value = latin1(rawHeaders[i + 1]);
    const prior = headers[lower];
    headers[lower] = prior === undefined ? value : [...(Array.isArray(prior) ? prior : [prior]), value];
  }
  return headers;
}

function latin1(raw: Buffer | string): string {
  return typeof raw === 'string' ? raw : raw.toString('latin1');
}

/** One request whose answer is streamed: resolves at its status (see StreamAnswer); rejects, before it, with an AnswerFailure. */
export function dispatchStream(dispatcher: Dispatcher, options: Dispatcher.DispatchOptions, signal: AbortSignalLike): Promise<StreamAnswer> {
  return new Promise((resolve, reject) => {
    const handler = new AnswerStreamHandler(signal, resolve, reject);
    dispatcher.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
  });
}
