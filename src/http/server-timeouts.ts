import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { GatewayConfig } from '../config/schema.js';
import { errors } from '../errors.js';

// Request timeouts for the HTTP server. Node checks them on a timer (connectionsCheckingInterval,
// 30 s by default), so the interval follows the shortest timeout. There is deliberately no socket
// inactivity timeout: a stream can stay quiet for minutes while the model thinks (upstream
// streamIdleTimeoutMs bounds those).

export function serverTimeouts(server: GatewayConfig['server']): {
  requestTimeout: number;
  keepAliveTimeout: number;
  http: { headersTimeout: number; requestTimeout: number; connectionsCheckingInterval: number };
  clientErrorHandler: (error: Error & { code?: string }, socket: Socket) => void;
} {
  const requestTimeout = server.requestTimeoutMs;
  // Node requires headersTimeout ≤ requestTimeout when both are set.
  const headersTimeout = requestTimeout > 0 ? Math.min(server.headersTimeoutMs, requestTimeout) : server.headersTimeoutMs;
  const shortest = requestTimeout > 0 ? Math.min(requestTimeout, headersTimeout) : headersTimeout;
  return {
    requestTimeout,
    keepAliveTimeout: server.keepAliveTimeoutMs,
    http: { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.max(100, Math.min(30_000, Math.floor(shortest / 4))) },
    clientErrorHandler: (error, socket) => answerClientError(error, socket, headersTimeout, requestTimeout),
  };
}

/** Errors Node raises before a request exists (timeouts, malformed HTTP): the catalogue's shape, then close. */
function answerClientError(error: Error & { code?: string }, socket: Socket, headersTimeout: number, requestTimeout: number): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const mapped =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? errors.requestTimeout(headersTimeout, requestTimeout)
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? errors.headersTooLarge()
        : errors.malformedHttp();
  if (socket.writable) {
    const body = JSON.stringify(mapped.toBody());
    socket.write(`HTTP/1.1 ${mapped.status} ${STATUS_CODES[mapped.status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
