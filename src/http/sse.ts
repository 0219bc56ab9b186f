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
  const res = reply.raw;
  let closed = false;
  let wake: (() => void) | undefined;
  const onClose = (): void => {
    if (!res.writableFinished) {
      closed = true;
      options.abort.abort();
    }
    wake?.();
  };
  res.on('close', onClose);
  // What is written in the same tick (the headers and a first burst read from upstream, a burst's
  // frames, the last frames and [DONE]) goes out in one socket write, as one HTTP chunk: frames are
  // joined into one string and written once the tick's promise jobs have run (no timer, so nothing
  // waits). Node makes a chunk (size line, data, CRLF) of every write, and sends the headers with the
  // first one; a stream that ends in the tick it started is one res.end: headers, data and the last
  // chunk in one writev. No res.cork: Node 24 puts the last chunk before the corked data on end.
  let pending = '';
  let flushQueued = false;
  const flush = (): void => {
    flushQueued = false;
    if (res.writableEnded) return;
    if (pending !== '') {
      const out = pending;
      pending = '';
      res.write(out);
    } else if (!res.headersSent) {
      res.flushHeaders(); // the client learns the stream started even if the first frame is slow
    }
  };
  const queueFlush = (): void => {
    if (flushQueued) return;
    flushQueued = true;
    process.nextTick(flush);
  };
  const send = (frame: string): void => {
    pending += frame;
    // A long burst is not held as one string: past FLUSH_AT it is written now.
    if (pending.length >= FLUSH_AT) flush();
    else queueFlush();
  };
  res.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  queueFlush();

  let lastWrite = Date.now();
  const pingMs = options.pingMs ?? 0;
  const pinger = pingMs > 0 ? setInterval(() => {
    if (closed || res.writableNeedDrain || Date.now() - lastWrite < pingMs) return;
    send(SSE_PING);
    lastWrite = Date.now();
  }, Math.max(10, Math.floor(pingMs / 2))) : undefined;
  pinger?.unref();

  const iterator = items[Symbol.asyncIterator]();
  try {
    while (!closed) {
      const next = await iterator.next();
      if (closed) break;
      const frame = next.done ? (options.last ?? '') : render(next.value);
      if (frame !== '') {
        lastWrite = Date.now();
        send(frame);
      }
      if (next.done) break;
      // Writes happen at the end of the tick, so a full socket buffer is seen one item late at most;
      // what waits meanwhile is bounded by FLUSH_AT and one upstream read.
      if (res.writableNeedDrain) await drained();
    }
  } catch (error) {
    options.onError?.(error);
    if (!closed) send(options.errorFrame(isGatewayError(error) ? error : errors.internal()));
  } finally {
    clearInterval(pinger);
    if (closed) await iterator.return?.().catch(() => undefined);
    res.off('close', onClose);
    if (!res.writableEnded) {
      const out = closed ? '' : pending;
      pending = '';
      if (out !== '') res.end(out);
      else res.end();
    }
  }

  function drained(): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = (): void => {
        res.off('drain', done);
        wake = undefined;
        resolve();
      };
      wake = done;
      res.once('drain', done);
    });
  }
}
