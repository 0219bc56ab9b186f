import type { ServerResponse } from 'node:http';
import type { FastifyReply } from 'fastify';
import { errors, isGatewayError, type GatewayError } from '../errors.js';

// Writes an SSE response from an async iterable of ready-made frames ("data: …\n\n").
// Hand-written on purpose, not @fastify/sse: frames are relayed byte for byte, a write waiting
// for 'drain' must also wake up when the client disconnects (@fastify/sse 0.6.0's close does not
// release a pending write, so the handler would hang), and the disconnect must abort the upstream
// request at once. Frames are built here only: data split into one `data:` line per line, event
// names without CR/LF, and a `: ping` comment when the stream is idle so proxies keep it open.

const LINE_BREAK = /\r\n|\r|\n/;

/** One `data:` line per line of the payload (a bare newline inside would end the field). */
export function sseData(payload: string): string {
  // The usual payload (one line) in one concatenation: this runs once per streamed event.
  if (!payload.includes('\n') && !payload.includes('\r')) return `data: ${payload}\n\n`;
  return `${dataLines(payload)}\n`;
}

export function sseEvent(event: string, payload: string): string {
  if (!isEventName(event)) throw new TypeError('an SSE event name cannot contain CR or LF');
  return `event: ${event}\n${dataLines(payload)}\n`;
}

/** Whether `name` can go on an `event:` line as is. */
export function isEventName(name: string): boolean {
  return !name.includes('\n') && !name.includes('\r');
}

function dataLines(payload: string): string {
  if (!payload.includes('\n') && !payload.includes('\r')) return `data: ${payload}\n`;
  return payload
    .split(LINE_BREAK)
    .map((line) => `data: ${line}\n`)
    .join('');
}

export const SSE_PING = ': ping\n\n';

/** Joined frames past this many characters are written at once rather than at the end of the tick. */
const FLUSH_AT = 64 * 1024;

export interface SseOptions {
  headers: Record<string, string>;
  /** Aborted when the client goes away. */
  abort: { abort(): void };
  /** Renders the terminal frame for an error raised after the stream started. */
  errorFrame: (error: GatewayError) => string;
  onError?: (error: unknown) => void;
  /** A `: ping` comment after this long without a frame; 0 = never. */
  pingMs?: number;
}

export async function writeSse(reply: FastifyReply, frames: AsyncIterable<string>, options: SseOptions): Promise<void> {
  await writeSseFrom(reply, frames, (frame) => frame, options);
}

/**
 * writeSse for items rendered to frames as they are written (one async step per item fewer than a
 * generator that renders them); `render` may return '' for an item that sends nothing, and
 * `options.last` is written after the last item.
 */
export async function writeSseFrom<T>(reply: FastifyReply, items: AsyncIterable<T>, render: (item: T) => string, options: SseOptions & { last?: string }): Promise<void> {
  reply.hijack();
  const writer = new SseWriter(reply.raw, options.abort, options.errorFrame);
  const res = reply.raw;
  res.writeHead(200, {
    ...options.headers,
    'x-request-id': reply.request.id,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // The head alone once this turn of the event loop is over, unless a frame took it along by then
  // (a first frame in the same read, or a stream that ended in its first tick).
  setImmediate(startIfIdle, writer);
  const pingMs = options.pingMs ?? 0;
  if (pingMs > 0) watchIdle(writer, pingMs);

  const iterator = items[Symbol.asyncIterator]();
  try {
    while (!writer.closed) {
      // The item goes straight to writeItem: a suspended async function keeps what its variables
      // hold, and this one waits for the upstream's next read (the last item is a batch of chunks).
      const done = writeItem(writer, await iterator.next(), render, options.last);
      if (done) break;
      // Writes happen at the end of the tick, so a full socket buffer is seen one item late at most;
      // what waits meanwhile is bounded by FLUSH_AT and one upstream read.
      if (res.writableNeedDrain) await writer.drained();
    }
  } catch (error) {
    options.onError?.(error);
    if (!writer.closed) writer.send(options.errorFrame(isGatewayError(error) ? error : errors.internal()));
  } finally {
    if (pingMs > 0) unwatchIdle(writer, pingMs);
    if (writer.closed) await iterator.return?.().catch(() => undefined);
    writer.finish();
  }
}

/** Renders and sends one item (the last frame when the items ended); true when they ended. Nothing once the client is gone. */
function writeItem<T>(writer: SseWriter, next: IteratorResult<T>, render: (item: T) => string, last: string | undefined): boolean {
  if (writer.closed) return true;
  const frame = next.done ? (last ?? '') : render(next.value);
  if (frame !== '') {
    writer.lastWrite = Date.now();
    writer.send(frame);
  }
  return next.done === true;
}

// The writer's state is one object per stream, and its listeners (close, drain, the end-of-tick
// flush, the idle ping) are functions shared by all streams, not closures made per stream.
const WRITER = Symbol('sse writer');
type WriterSlot = ServerResponse & { [WRITER]?: SseWriter };

class SseWriter {
  /** The client went away before the response ended. */
  closed = false;
  lastWrite = Date.now();
  /** Neighbours in the list of streams watched for idle pings. */
  idlePrev: SseWriter | undefined;
  idleNext: SseWriter | undefined;
  /** Neighbours in the list of open streams (cut with an error frame at shutdown). */
  openPrev: SseWriter | undefined;
  openNext: SseWriter | undefined;
  // What is written in the same tick (the headers and a first burst read from upstream, a burst's
  // frames, the last frames and [DONE]) goes out in one socket write, as one HTTP chunk: frames are
  // joined into one string and written once the tick's promise jobs have run (no timer, so nothing
  // waits). Node makes a chunk (size line, data, CRLF) of every write, and sends the headers with the
  // first one; a stream that ends in the tick it started is one res.end: headers, data and the last
  // chunk in one writev. No res.cork: Node 24 puts the last chunk before the corked data on end.
  private pending = '';
  private flushQueued = false;
  /** The head (with a first write, or alone) has gone to the socket. */
  private started = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly res: ServerResponse,
    private readonly abort: SseOptions['abort'],
    private readonly errorFrame: SseOptions['errorFrame'],
  ) {
    (res as WriterSlot)[WRITER] = this;
    res.on('close', onResponseClose);
    linkOpen(this);
  }

  /** Ends the stream now with the route's error frame for `error` and stops its upstream (shutdown). */
  cut(error: GatewayError): void {
    if (this.closed || this.res.writableEnded) return;
    this.send(this.errorFrame(error));
    this.closed = true; // the write loop stops and writes nothing more
    const out = this.pending;
    this.pending = '';
    this.res.end(out);
    this.abort.abort();
    this.wakeUp();
  }

  onClose(): void {
    if (!this.res.writableFinished) {
      this.closed = true;
      this.abort.abort();
    }
    this.wakeUp();
  }

  send(frame: string): void {
    this.pending += frame;
    // A long burst is not held as one string: past FLUSH_AT it is written now.
    if (this.pending.length >= FLUSH_AT) this.flush();
    else this.queueFlush();
  }

  private queueFlush(): void {
    if (this.flushQueued) return;
    this.flushQueued = true;
    process.nextTick(flushWriter, this);
  }

  flush(): void {
    this.flushQueued = false;
    const res = this.res;
    if (res.writableEnded) return;
    if (this.pending === '') return;
    const out = this.pending;
    this.pending = '';
    this.started = true;
    res.write(out);
  }

  /** The head alone, when nothing was written yet: the client learns the stream started even if the first frame is slow. */
  startIfIdle(): void {
    // Our own flag, not res.headersSent: that is true from writeHead on, before a byte left.
    if (this.started || this.res.writableEnded || this.pending !== '') return;
    this.started = true;
    this.res.flushHeaders();
  }

  /** A `: ping` comment when nothing was written for `idleMs` (and the socket is not full). */
  pingIfIdle(idleMs: number): void {
    if (this.closed || this.res.writableNeedDrain || Date.now() - this.lastWrite < idleMs) return;
    this.send(SSE_PING);
    this.lastWrite = Date.now();
  }

  drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.wake = resolve;
      this.res.once('drain', onResponseDrain);
    });
  }

  wakeUp(): void {
    const wake = this.wake;
    if (wake === undefined) return;
    this.wake = undefined;
    this.res.off('drain', onResponseDrain);
    wake();
  }

  /** The end of the response (what is pending in the same write), unless the client is gone. */
  finish(): void {
    const res = this.res;
    unlinkOpen(this);
    res.off('close', onResponseClose);
    (res as WriterSlot)[WRITER] = undefined;
    if (!res.writableEnded) {
      const out = this.closed ? '' : this.pending;
      this.pending = '';
      if (out !== '') res.end(out);
      else res.end();
    }
  }
}

function onResponseClose(this: ServerResponse): void {
  (this as WriterSlot)[WRITER]?.onClose();
}

function onResponseDrain(this: ServerResponse): void {
  (this as WriterSlot)[WRITER]?.wakeUp();
}

function flushWriter(writer: SseWriter): void {
  writer.flush();
}

function startIfIdle(writer: SseWriter): void {
  writer.startIfIdle();
}

// Idle pings: one interval per ping period for all streams (an interval per stream was a timer
// object and a closure each), checking each stream at the period a stream's own interval had.
// Streams are linked through the writers themselves, and a period's list and interval outlive its
// last stream (the interval stops when it finds the list empty): at a moderate load streams seldom
// overlap, and a Set, Map entry and interval made and dropped per stream were old-space garbage
// (a long-lived Map or Set that shrinks allocates its new table in the old generation).
interface IdleList {
  first: SseWriter | undefined;
  timer: NodeJS.Timeout | undefined;
}
const idleLists = new Map<number, IdleList>();

/**
 * When the streams of one ping period are checked, and how long a stream must have been quiet to be
 * pinged at a check, so that no stream stays silent longer than `pingMs` (server.ssePingMs): a stream
 * that went quiet just after a check is pinged at most `checkEveryMs + pingAfterIdleMs` later, and
 * one more check period is left as slack for a timer that fires late on a busy event loop. So a
 * stream is pinged after 3/5 to 4/5 of `pingMs` of silence (a check every fifth of it).
 */
export function pingSchedule(pingMs: number): { checkEveryMs: number; pingAfterIdleMs: number } {
  const checkEveryMs = Math.max(5, Math.floor(pingMs / 5));
  return { checkEveryMs, pingAfterIdleMs: Math.max(1, pingMs - 2 * checkEveryMs) };
}

function watchIdle(writer: SseWriter, pingMs: number): void {
  let list = idleLists.get(pingMs);
  if (list === undefined) {
    list = { first: undefined, timer: undefined };
    idleLists.set(pingMs, list);
  }
  writer.idleNext = list.first;
  if (list.first !== undefined) list.first.idlePrev = writer;
  list.first = writer;
  if (list.timer === undefined) {
    const schedule = pingSchedule(pingMs);
    list.timer = setInterval(pingIdle, schedule.checkEveryMs, list, schedule.pingAfterIdleMs);
    list.timer.unref();
  }
}

function unwatchIdle(writer: SseWriter, pingMs: number): void {
  const list = idleLists.get(pingMs);
  if (list === undefined) return;
  const { idlePrev: prev, idleNext: next } = writer;
  if (prev !== undefined) prev.idleNext = next;
  else if (list.first === writer) list.first = next;
  if (next !== undefined) next.idlePrev = prev;
  writer.idlePrev = writer.idleNext = undefined;
}

function pingIdle(list: IdleList, idleMs: number): void {
  if (list.first === undefined) {
    clearInterval(list.timer);
    list.timer = undefined;
    return;
  }
  // The next one is read first: a writer that leaves the list while it is pinged does not end the walk.
  for (let writer: SseWriter | undefined = list.first; writer !== undefined; ) {
    const next: SseWriter | undefined = writer.idleNext;
    writer.pingIfIdle(idleMs);
    writer = next;
  }
}

// Open streams, linked through their writers (no Set entry per stream): at shutdown, those still
// open when the grace period ends get a terminal error frame before the process exits.
let firstOpen: SseWriter | undefined;

function linkOpen(writer: SseWriter): void {
  writer.openNext = firstOpen;
  if (firstOpen !== undefined) firstOpen.openPrev = writer;
  firstOpen = writer;
}

function unlinkOpen(writer: SseWriter): void {
  const { openPrev: prev, openNext: next } = writer;
  if (prev !== undefined) prev.openNext = next;
  else if (firstOpen === writer) firstOpen = next;
  if (next !== undefined) next.openPrev = prev;
  writer.openPrev = writer.openNext = undefined;
}

/**
 * Ends every open SSE stream with its route's error frame for `error` (e.g. shutting_down) and
 * stops its upstream: a client sees a terminal event, never a cut mid-answer. Returns how many.
 */
export function cutOpenStreams(error: GatewayError): number {
  let count = 0;
  for (let writer = firstOpen; writer !== undefined; ) {
    const next: SseWriter | undefined = writer.openNext;
    writer.cut(error);
    unlinkOpen(writer);
    count++;
    writer = next;
  }
  return count;
}
