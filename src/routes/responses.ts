import type { FastifyInstance, FastifyRequest } from 'fastify';
import { responsesRequestOf } from './validated-body.js';
import { gatewayKeyOf } from './guard.js';
import { errors, type GatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { sseEvent, writeSse } from '../http/sse.js';
import { scopeOf } from '../util/scope.js';
import { compactResponse } from '../responses/compact.js';
import { createResponse } from '../responses/service.js';
import { socketMemoryOf } from '../responses/socket-memory.js';
import type { ResponseStore } from '../state/response-store.js';
import type { Item } from '../api/responses-types.js';
import { clientAbortSignal, requestInfoOf, streamFailed, targetOf } from './request-context.js';

// The Responses API: create (JSON or SSE, every upstream), compact, retrieve, delete, list input items.
// State lives in gateway.responseStore, so the same calls work whatever upstream answered.

interface IdParams {
  id: string;
}

interface ListQuery {
  limit?: string;
  order?: string;
  after?: string;
  before?: string;
}

export function registerResponses(app: FastifyInstance, gateway: Gateway): void {
  app.post('/v1/responses', { config: { endpoint: 'responses' } }, async (request, reply) => {
    const info = requestInfoOf(request, 'responses');
    const abort = clientAbortSignal(reply);
    const input = { requestId: request.id, headers: request.headers, signal: abort.signal, log: request.log, info, target: targetOf(request) };
    const result = await createResponse(responsesRequestOf(request), input, gateway, socketMemoryOf(request));
    if (result.kind === 'json') return reply.headers(result.headers).send(result.response);
    await writeSse(reply, result.frames, {
      headers: result.headers,
      abort,
      pingMs: gateway.loaded.config.server.ssePingMs,
      // The create paths turn their own errors into events; this covers anything that escaped them.
      errorFrame: (error: GatewayError) =>
        sseEvent('error', JSON.stringify({ type: 'error', code: error.code, message: error.message, param: error.param, sequence_number: 0 })),
      onError: (error) => streamFailed(request.log, info, error, abort.signal, 'responses stream ended with an error'),
    });
  });

  // Compaction (docs/responses.md): relayed to OpenAI, written by the upstream model elsewhere.
  app.post('/v1/responses/compact', { config: { endpoint: 'responses' } }, async (request, reply) => {
    const info = requestInfoOf(request, 'responses');
    const abort = clientAbortSignal(reply);
    const input = { requestId: request.id, headers: request.headers, signal: abort.signal, log: request.log, info, target: targetOf(request) };
    const result = await compactResponse(responsesRequestOf(request), input, gateway);
    return reply.headers(result.headers).send(result.body);
  });

  app.get<{ Params: IdParams }>('/v1/responses/:id', { config: { endpoint: 'responses' } }, async (request, reply) => {
    requestInfoOf(request, 'responses');
    const record = await read(storeOf(request, gateway), request.params.id);
    return reply.send(record.response);
  });

  app.delete<{ Params: IdParams }>('/v1/responses/:id', { config: { endpoint: 'responses' } }, async (request, reply) => {
    requestInfoOf(request, 'responses');
    const id = request.params.id;
    const deleted = await storeOf(request, gateway).delete(id).catch(() => {
      throw errors.responseStoreUnavailable();
    });
    if (!deleted) throw errors.responseNotFound(id);
    return reply.send({ id, object: 'response', deleted: true });
  });

  app.get<{ Params: IdParams; Querystring: ListQuery }>('/v1/responses/:id/input_items', { config: { endpoint: 'responses' } }, async (request, reply) => {
    requestInfoOf(request, 'responses');
    const record = await read(storeOf(request, gateway), request.params.id);
    return reply.send(listPage(record.input, request.query));
  });
}

/** The Responses store as the request's gateway key sees it: another key's id is a plain 404. */
function storeOf(request: FastifyRequest, gateway: Gateway): ResponseStore {
  return gateway.responseStore.forScope(scopeOf(gatewayKeyOf(request)?.name));
}

async function read(store: ResponseStore, id: string): Promise<NonNullable<Awaited<ReturnType<ResponseStore['get']>>>> {
  const record = await store.get(id).catch(() => {
    throw errors.responseStoreUnavailable();
  });
  if (!record) throw errors.responseNotFound(id);
  return record;
}

/** OpenAI's cursor list: `order` desc by default, `limit` 1–100 (20), `after`/`before` item ids. */
export function listPage(items: readonly Item[], query: ListQuery): { object: 'list'; data: Item[]; first_id: string | null; last_id: string | null; has_more: boolean } {
  const limit = query.limit === undefined ? 20 : Number(query.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) {
    throw errors.invalidRequest(`Invalid 'limit': expected an integer between 1 and 100, but got '${query.limit}' instead.`, 'limit', 'invalid_value');
  }
  if (query.order !== undefined && query.order !== 'asc' && query.order !== 'desc') {
    throw errors.invalidRequest(`Invalid value: '${query.order}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value');
  }
  let list = query.order === 'asc' ? items.slice() : items.slice().reverse();
  for (const [cursor, keep] of [[query.after, 'after'], [query.before, 'before']] as const) {
    if (cursor === undefined) continue;
    const at = list.findIndex((item) => item.id === cursor);
    if (at < 0) throw errors.itemNotFound(cursor, keep);
    list = keep === 'after' ? list.slice(at + 1) : list.slice(0, at);
  }
  const data = list.slice(0, limit).map(asInputItem);
  return { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: list.length > limit };
}

/** Stored input items as OpenAI lists them: messages with part lists and a status. */
function asInputItem(item: Item): Item {
  const needsStatus = item.type === 'function_call' || item.type === 'function_call_output';
  if (item.type !== 'message') return needsStatus && typeof item.status !== 'string' ? { ...item, status: 'completed' } : item;
  const assistant = item.role === 'assistant';
  const content = typeof item.content === 'string' ? [assistant ? { type: 'output_text', text: item.content, annotations: [], logprobs: [] } : { type: 'input_text', text: item.content }] : item.content;
  return { ...item, content, status: typeof item.status === 'string' ? item.status : 'completed' };
}
