import type { ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ClientAbort, type AbortSignalLike } from '../client-abort.js';
import { classifyFailure, logFailure } from '../resilience/index.js';
import type { ErrorBody } from '../errors.js';
import type { Endpoint } from '../metrics/index.js';
import { newRequestInfo, type RequestInfo } from '../pipeline/request-info.js';
import type { ResolvedModel } from '../routing/router.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The endpoint a route serves (metrics label, access log); routes without one are `other`. */
    endpoint?: Endpoint;
    /** Renders this route's error bodies (the app's error handler calls it); OpenAI's shape otherwise. */
    errorBody?: (body: ErrorBody, status: number, requestId: string) => unknown;
    /** The gateway key may come as `x-api-key` (Anthropic's clients); elsewhere only as Authorization: Bearer. */
    apiKeyHeader?: boolean;
  }
}

const INFO = Symbol('toolgate.requestInfo');
const JOURNAL = Symbol('toolgate.journal');
const TARGET = Symbol('toolgate.target');
type WithInfo = FastifyRequest & { [INFO]?: RequestInfo; [TARGET]?: ResolvedModel };

/** The endpoint the matched route names in its config. */
export function endpointOf(request: FastifyRequest): Endpoint {
  return request.routeOptions.config?.endpoint ?? 'other';
}

/** Chat, Responses and Messages creation: the routes whose body names a model the pipeline calls. */
export function isPipelineRoute(request: FastifyRequest): boolean {
  const endpoint = endpointOf(request);
  return request.method === 'POST' && (endpoint === 'chat_completions' || endpoint === 'responses' || endpoint === 'messages');
}

/** The body's model, resolved once by the guards' preHandler; later steps read it from here. */
export function attachTarget(request: FastifyRequest, target: ResolvedModel): void {
  (request as WithInfo)[TARGET] = target;
}

export function targetOf(request: FastifyRequest): ResolvedModel | undefined {
  return (request as WithInfo)[TARGET];
}

/** Whether this app's requests keep the inspector's journal notes (RequestInfo.journal); set once at startup. */
export function keepJournal(app: FastifyInstance, enabled: boolean): void {
  (app as FastifyInstance & { [JOURNAL]?: boolean })[JOURNAL] = enabled;
}

/** The per-request record the access log line and the request metrics read at the end. */
export function requestInfoOf(request: FastifyRequest, endpoint: Endpoint): RequestInfo {
  const holder = request as WithInfo;
  if (!holder[INFO]) holder[INFO] = newRequestInfo(endpoint, (request.server as { [JOURNAL]?: boolean })[JOURNAL] !== false);
  return holder[INFO];
}

export function peekRequestInfo(request: FastifyRequest): RequestInfo | undefined {
  return (request as WithInfo)[INFO];
}

/** Aborted when the client disconnects before the response finished: cancels upstream work. */
export function clientAbortSignal(reply: FastifyReply): ClientAbort {
  const abort = new ClientAbort();
  (reply.raw as ServerResponse & WithAbort)[ABORT] = abort;
  reply.raw.on('close', onClientClose);
  return abort;
}

const ABORT = Symbol('toolgate.clientAbort');
type WithAbort = { [ABORT]?: ClientAbort };

/** One listener function for every response (its signal rides on the response), not a closure per request. */
function onClientClose(this: ServerResponse & WithAbort): void {
  const abort = this[ABORT];
  if (abort === undefined) return;
  this[ABORT] = undefined;
  if (this.writableFinished) return;
  abort.abort();
  // A keep-alive socket the client half-closed would otherwise hold app.close() for the
  // whole keep-alive timeout.
  this.socket?.destroy();
}

/** A stream that failed after it started: logged at the failure table's level; a client that left is no error. */
export function streamFailed(log: FastifyBaseLogger, info: RequestInfo, error: unknown, signal: AbortSignalLike, message: string): void {
  if (classifyFailure(error, signal).row !== 'client_aborted') info.failed(error instanceof Error ? error.message : String(error));
  logFailure(log, error, signal, message);
}
