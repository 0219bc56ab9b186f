import type { Dispatcher } from 'undici';
import type { AbortSignalLike } from '../client-abort.js';
import { parseHeaders, undiciErrors } from './undici-parts.js';
import { decodeUtf8 } from './upstream-body.js';

// A JSON answer read straight off undici's dispatcher into chunks. undici's request() builds, per
// call, an AsyncResource handler, a Readable body stream (its events: data, end, close) and the
// headers object, and the caller then listens to that stream to collect it: for an answer read
// whole, that was ~6 µs of each JSON request's CPU. This handler keeps only what the answer needs
// (status, the bytes up to a cap) and parses the headers only for an error status, whose
// retry-after hints are read. Every adapter's whole JSON answer is read here (OpenAI-compatible and
// Gemini); the decoding is upstream-body.ts's. Past the cap the request is aborted (the socket
// closes instead of going back to the pool mid-body).

export interface AnswerText {
  status: number;
  /** Parsed only for an error status (>= 400); `{}` otherwise. */
  headers: Record<string, string | string[] | undefined>;
  /** The body as UTF-8 (a leading BOM dropped); for an error status at most its first `errorBytes`. */
  text: string;
  /** False when a < 400 answer went past `maxBytes` (the request was aborted). */
  complete: boolean;
}

export interface AnswerLimits {
  /** Most bytes of a < 400 answer. */
  maxBytes: number;
  /** Most bytes of an error answer read for its message; a body that fails reads as ''. */
  errorBytes: number;
}

type Abort = (reason?: Error) => void;

/** How a request failed: undici's (or the abort's) error, and whether the answer's status had come. */
export class AnswerFailure extends Error {
  constructor(
    readonly reason: unknown,
    readonly afterHeaders: boolean,
  ) {
    super(reason instanceof Error ? reason.message : String(reason));
  }
}

const NO_HEADERS: AnswerText['headers'] = Object.freeze({}) as AnswerText['headers'];

/** undici's legacy handler interface (the one its own request() uses). */
class AnswerTextHandler {
  private abort: Abort | undefined;
  private status = 0;
  private headers = NO_HEADERS;
  private readonly chunks: Buffer[] = [];
  private length = 0;
  private cap = 0;
  private settled = false;
  private readonly onAbort = (): void => this.stop(abortReason(this.signal));

  constructor(
    private readonly signal: AbortSignalLike,
    private readonly limits: AnswerLimits,
    private readonly resolve: (answer: AnswerText) => void,
    private readonly reject: (failure: AnswerFailure) => void,
  ) {
    if (!signal.aborted) signal.addEventListener('abort', this.onAbort);
  }

  onConnect(abort: Abort): void {
    this.abort = abort;
    if (this.signal.aborted) abort(abortReason(this.signal));
  }

  onHeaders(status: number, rawHeaders: Buffer[]): boolean {
    if (status < 200) return true; // informational: the answer comes after it
    this.status = status;
    this.cap = status >= 400 ? this.limits.errorBytes : this.limits.maxBytes;
    if (status >= 400) this.headers = parseHeaders(rawHeaders) as AnswerText['headers'];
    return true;
  }

  onData(chunk: Buffer): boolean {
    if (this.settled) return false;
    if (this.length + chunk.length <= this.cap) {
      this.chunks.push(chunk);
      this.length += chunk.length;
      return true;
    }
    this.chunks.push(chunk.subarray(0, this.cap - this.length));
    this.length = this.cap;
    // An error answer's prefix is all that is wanted of it: complete as far as the caller goes.
    this.finish(this.status >= 400);
    this.abort?.(new undiciErrors.RequestAbortedError());
    return false;
  }

  onComplete(): void {
    this.finish(true);
  }

  onError(error: Error): void {
    if (this.settled) return;
    // An error answer whose body fails reads as '' (its status says enough), as readErrorText.
    if (this.status >= 400) {
      this.chunks.length = 0;
      this.length = 0;
      this.finish(true);
      return;
    }
    this.done();
    this.reject(new AnswerFailure(error, this.status !== 0));
  }

  private stop(reason: Error): void {
    if (this.abort) this.abort(reason);
    else if (!this.settled) this.onError(reason);
  }

  private finish(complete: boolean): void {
    if (this.settled) return;
    this.done();
    this.resolve({ status: this.status, headers: this.headers, text: decodeUtf8(this.chunks, this.length), complete });
  }

  private done(): void {
    this.settled = true;
    this.signal.removeEventListener('abort', this.onAbort);
  }
}

/** What undici's request() aborts with: the signal's reason, else its RequestAbortedError. */
export function abortReason(signal: AbortSignalLike): Error {
  return (signal.reason as Error | undefined) ?? new undiciErrors.RequestAbortedError();
}

/** One request whose whole answer is read as text (see AnswerText); rejects with an AnswerFailure. */
export function dispatchForText(
  dispatcher: Dispatcher,
  options: Dispatcher.DispatchOptions,
  signal: AbortSignalLike,
  limits: AnswerLimits,
): Promise<AnswerText> {
  return new Promise((resolve, reject) => {
    const handler = new AnswerTextHandler(signal, limits, resolve, reject);
    dispatcher.dispatch(options, handler as unknown as Dispatcher.DispatchHandler);
  });
}
