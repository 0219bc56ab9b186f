import type { FastifyReply } from 'fastify';
import { errors, isGatewayError, type GatewayError } from '../errors.js';

// Writes an SSE response from an async iterable of ready-made frames ("data: …\n\n").
// Hand-written rather than @fastify/sse: frames are relayed byte for byte, a write waiting
// for 'drain' must also wake up when the client disconnects (or the handler would hang), and
// the disconnect must abort the upstream request at once.

export function sseData(payload: string): string {
  return `data: ${payload}\n\n`;
}

export function sseEvent(event: string, payload: string): string {
  return `event: ${event}\ndata: ${payload}\n\n`;
}

export interface SseOptions {
  headers: Record<string, string>;
  /** Aborted when the client goes away. */
  abort: AbortController;
  /** Renders the terminal frame for an error raised after the stream started. */
  errorFrame: (error: GatewayError) => string;
  onError?: (error: unknown) => void;
}

export async function writeSse(reply: FastifyReply, frames: AsyncIterable<string>, options: SseOptions): Promise<void> {
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
  res.writeHead(200, {
    ...options.headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  res.flushHeaders();

  const iterator = frames[Symbol.asyncIterator]();
  try {
    while (!closed) {
      const next = await iterator.next();
      if (next.done || closed) break;
      if (!res.write(next.value)) {
        await new Promise<void>((resolve) => {
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
  } catch (error) {
    options.onError?.(error);
    if (!closed) res.write(options.errorFrame(isGatewayError(error) ? error : errors.internal()));
  } finally {
    if (closed) await iterator.return?.().catch(() => undefined);
    res.off('close', onClose);
    if (!res.writableEnded) res.end();
  }
}
