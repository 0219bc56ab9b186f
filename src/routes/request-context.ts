import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Endpoint } from '../metrics/index.js';
import { newRequestInfo, type RequestInfo } from '../pipeline/request-info.js';

const INFO = Symbol('toolgate.requestInfo');
type WithInfo = FastifyRequest & { [INFO]?: RequestInfo };

/** The per-request record the access log line and the request metrics read at the end. */
export function requestInfoOf(request: FastifyRequest, endpoint: Endpoint): RequestInfo {
  const holder = request as WithInfo;
  if (!holder[INFO]) holder[INFO] = newRequestInfo(endpoint);
  return holder[INFO];
}

export function peekRequestInfo(request: FastifyRequest): RequestInfo | undefined {
  return (request as WithInfo)[INFO];
}

/** Aborted when the client disconnects before the response finished: cancels upstream work. */
export function clientAbortSignal(reply: FastifyReply): AbortController {
  const abort = new AbortController();
  reply.raw.once('close', () => {
    if (reply.raw.writableFinished) return;
    abort.abort();
    // A keep-alive socket the client half-closed would otherwise hold app.close() for the
    // whole keep-alive timeout.
    reply.raw.socket?.destroy();
  });
  return abort;
}
