import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import websocket from '@fastify/websocket';
import { createParser } from 'eventsource-parser';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { WebSocket, RawData } from 'ws';
import { gatewayKeyOf } from './guard.js';
import { errors, isGatewayError, type GatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { isRecord } from '../is-record.js';
import { SOCKET_MEMORY_HEADER, SocketMemory } from '../responses/socket-memory.js';
import { scopeOf } from '../util/scope.js';

// WebSocket mode on /v1/responses (OpenAI's Responses WebSocket mode, the Open Responses spec's
// WebSocket transport): a client opens one socket (the gateway key checked on the upgrade, as on
// every /v1 route) and sends `{"type": "response.create", ...the create body}` as JSON text frames;
// each turn's events come back as JSON text frames, the same events the SSE stream carries.
//
// A new door, not a new pipeline: each turn is `POST /v1/responses` with `stream: true` injected
// into this app with the upgrade's headers, so it takes the one request path (validate, guards and
// limits, repair, store, upstream, metrics, access log) and the socket only changes the writer:
// SSE frames become WebSocket frames. Bounded: a message is at most server.bodyLimitBytes (ws
// closes 1009 past it), one turn runs at a time (others wait, at most server.websocket.maxQueued),
// an idle socket is closed, and a frame that is not a response.create event gets an error event
// and a close (1008).

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** Above this many bytes buffered on the socket, the turn waits for the client to read. */
const HIGH_WATER = 1024 * 1024;
/** Upgrade headers a turn does not take (the socket's own, and what the injected request sets itself). */
const NOT_FORWARDED = new Set(['host', 'connection', 'upgrade', 'content-length', 'content-type', 'transfer-encoding', 'x-request-id', SOCKET_MEMORY_HEADER]);

/**
 * The WebSocket plugin, on the root: registered before the guards, so its hooks see every upgrade
 * first (an upgrade the gateway key refuses gets its 401 and the socket is closed, not left open).
 */
export async function registerWebSocketSupport(app: FastifyInstance, gateway: Gateway): Promise<void> {
  const config = gateway.loaded.config.server;
  if (config.websocket.enabled) await app.register(websocket, { options: { maxPayload: config.bodyLimitBytes } });
}

/** The door: GET /v1/responses upgraded to a WebSocket (registerWebSocketSupport first). */
export function registerResponsesSocket(app: FastifyInstance, gateway: Gateway): void {
  if (!gateway.loaded.config.server.websocket.enabled) return;
  app.get('/v1/responses', { websocket: true }, (socket, request) => {
    new ResponsesSocket(socket, request, app, gateway).start();
  });
}

interface Turn {
  body: Record<string, unknown>;
  streamId?: string;
}

class ResponsesSocket {
  private readonly memory: SocketMemory;
  private readonly queue: Turn[] = [];
  private readonly headers: Record<string, string>;
  private running = false;
  private closed = false;
  private idle: NodeJS.Timeout | undefined;
  /** The running turn's response, destroyed when the socket goes (the route's client abort stops its upstream). */
  private current: NodeJS.EventEmitter & { destroy(): void } | undefined;

  constructor(
    private readonly socket: WebSocket,
    private readonly request: FastifyRequest,
    private readonly app: FastifyInstance,
    private readonly gateway: Gateway,
  ) {
    const settings = gateway.loaded.config.server.websocket;
    this.memory = new SocketMemory(scopeOf(gatewayKeyOf(request)?.name), { maxBytes: settings.memoryBytes, ttlMs: 3_600_000 });
    this.headers = forwardedHeaders(request.headers);
  }

  start(): void {
    this.socket.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    this.socket.on('close', () => this.onClose());
    this.socket.on('error', () => this.onClose());
    this.armIdle();
  }

  private get settings(): Gateway['loaded']['config']['server']['websocket'] {
    return this.gateway.loaded.config.server.websocket;
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    this.armIdle();
    if (isBinary) return this.refuse('binary frames are not accepted; send each response.create event as JSON text.');
    let event: unknown;
    try {
      event = JSON.parse(textOf(data));
    } catch {
      return this.refuse('the frame is not JSON.');
    }
    if (!isRecord(event)) return this.refuse('the frame is not a JSON object.');
    if (event.type !== 'response.create') return this.refuse(`unsupported event type ${JSON.stringify(String(event.type)).slice(0, 100)}; the only client event is 'response.create'.`);
    const { type: _type, stream_id: streamId, stream: _stream, ...body } = event;
    const turn: Turn = { body, streamId: typeof streamId === 'string' ? streamId.slice(0, 256) : undefined };
    if (this.running && this.queue.length >= this.settings.maxQueued) {
      this.sendError(errors.websocketQueueFull(this.settings.maxQueued), turn.streamId);
      return;
    }
    this.queue.push(turn);
    void this.pump();
  }

  /** One turn at a time, in the order they came. */
  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let turn = this.queue.shift(); turn !== undefined && !this.closed; turn = this.queue.shift()) await this.run(turn);
    } finally {
      this.running = false;
      this.armIdle();
    }
  }

  private async run(turn: Turn): Promise<void> {
    let failed = true;
    try {
      failed = await this.relay(turn);
    } catch (error) {
      this.request.log.warn({ err: error }, 'responses websocket turn failed');
      this.sendError(isGatewayError(error) ? error : errors.internal(), turn.streamId);
    }
    // A turn that failed forgets the response it continued (OpenAI's connection-local cache does the same).
    const previous = turn.body.previous_response_id;
    if (failed && typeof previous === 'string') await this.memory.evict(previous);
  }

  /** Runs one turn down the HTTP route; true when it failed (an error or a failed response). */
  private async relay(turn: Turn): Promise<boolean> {
    const unsupported = unsupportedField(turn.body);
    if (unsupported) {
      this.sendError(unsupported, turn.streamId);
      return true;
    }
    const reply = await this.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: { ...this.headers, 'content-type': 'application/json', [SOCKET_MEMORY_HEADER]: this.memory.token },
      payload: JSON.stringify({ ...turn.body, stream: true }),
      payloadAsStream: true,
    });
    const stream = reply.stream() as Readable;
    const raw = reply.raw.res as NodeJS.EventEmitter & { destroy(): void };
    if (this.closed) {
      raw.destroy();
      return true;
    }
    this.current = raw;
    try {
      if (reply.statusCode !== 200 || !String(reply.headers['content-type'] ?? '').startsWith('text/event-stream')) {
        this.sendErrorBody(reply.statusCode, await readAll(stream), turn.streamId);
        return true;
      }
      return await this.relayEvents(stream, turn.streamId);
    } finally {
      this.current = undefined;
    }
  }

  /** SSE frames → WebSocket text frames, each event's data as is (with the turn's stream_id, when it has one). */
  private async relayEvents(stream: Readable, streamId: string | undefined): Promise<boolean> {
    let failed = false;
    let ended = false;
    const out: string[] = [];
    const parser = createParser({
      onEvent: (event) => {
        const type = event.event ?? 'message';
        if (type === 'error' || type === 'response.failed') failed = true;
        if (type === 'error' || TERMINAL.has(type)) ended = true;
        out.push(streamId === undefined ? event.data : withStreamId(event.data, streamId));
      },
    });
    for await (const chunk of stream) {
      parser.feed(textOf(chunk as Buffer));
      for (const frame of out.splice(0)) await this.send(frame);
      if (this.closed) return true;
    }
    if (!ended) {
      this.sendError(errors.internal('The response stream ended without a terminal event.'), streamId);
      return true;
    }
    return failed;
  }

  private send(frame: string): Promise<void> | void {
    if (this.closed) return;
    if (this.socket.bufferedAmount < HIGH_WATER) {
      this.socket.send(frame);
      return;
    }
    return new Promise((resolve) => this.socket.send(frame, () => resolve()));
  }

  /** The route's JSON error answer as the WebSocket `error` event (the error nested, with its HTTP status). */
  private sendErrorBody(status: number, text: string, streamId: string | undefined): void {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const error = isRecord(body) && isRecord(body.error) ? body.error : errors.internal().toBody().error;
    this.sendFrame({ type: 'error', status, error, ...(streamId === undefined ? {} : { stream_id: streamId }) });
  }

  private sendError(error: GatewayError, streamId?: string): void {
    this.sendFrame({ type: 'error', status: error.status, error: error.toBody().error, ...(streamId === undefined ? {} : { stream_id: streamId }) });
  }

  private sendFrame(event: Record<string, unknown>): void {
    if (!this.closed) this.socket.send(JSON.stringify(event));
  }

  /** A frame that is not a response.create event: an error event, then the socket is closed. */
  private refuse(detail: string): void {
    this.sendError(errors.websocketBadEvent(detail));
    this.close(1008, 'invalid event');
  }

  private armIdle(): void {
    clearTimeout(this.idle);
    if (this.closed || this.running) return;
    this.idle = setTimeout(() => this.close(1000, 'idle timeout'), this.settings.idleTimeoutMs);
    this.idle.unref();
  }

  private close(code: number, reason: string): void {
    if (this.closed) return;
    this.socket.close(code, reason);
    this.onClose();
  }

  private onClose(): void {
    if (this.closed) return;
    this.closed = true;
    clearTimeout(this.idle);
    this.queue.length = 0;
    this.current?.destroy();
    this.memory.close();
  }
}

/** Fields a WebSocket turn cannot take: a 400 as the HTTP route would give, in its words. */
function unsupportedField(body: Record<string, unknown>): GatewayError | undefined {
  if (body.background === true) return errors.invalidRequest("'background' is not supported in WebSocket mode.", 'background', 'unsupported_parameter');
  if (body.generate === false) return errors.invalidRequest("'generate: false' (warm-up without a response) is not supported by toolgate.", 'generate', 'unsupported_parameter');
  return undefined;
}

function forwardedHeaders(headers: IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || NOT_FORWARDED.has(name) || name.startsWith('sec-websocket-')) continue;
    out[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return out;
}

function withStreamId(data: string, streamId: string): string {
  try {
    const event: unknown = JSON.parse(data);
    return isRecord(event) ? JSON.stringify({ ...event, stream_id: streamId }) : data;
  } catch {
    return data;
  }
}

function textOf(data: RawData | Buffer): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

async function readAll(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
