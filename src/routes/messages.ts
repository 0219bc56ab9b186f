import type { FastifyInstance } from 'fastify';
import { messagesRequestOf } from './validated-body.js';
import type { GatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { sseEvent, writeSse } from '../http/sse.js';
import { countTokens } from '../messages/count-tokens.js';
import { anthropicErrorBody } from '../messages/errors.js';
import { parseMessagesRequest } from '../messages/schema.js';
import { createMessage } from '../messages/service.js';
import { clientAbortSignal, requestInfoOf, streamFailed, targetOf } from './request-context.js';

// The Anthropic Messages API (Claude Code, the Anthropic SDKs) on every upstream: create (JSON or
// SSE) and count_tokens. Errors on these routes, the gateway key's 401 included, are Anthropic-shaped,
// and the gateway key may come as x-api-key, as Anthropic's clients send it.

export function registerMessages(app: FastifyInstance, gateway: Gateway): void {
  app.post('/v1/messages', { config: { endpoint: 'messages', errorBody: anthropicErrorBody, apiKeyHeader: true } }, async (request, reply) => {
    const info = requestInfoOf(request, 'messages');
    const abort = clientAbortSignal(reply);
    const input = { requestId: request.id, headers: request.headers, signal: abort.signal, log: request.log, info, target: targetOf(request) };
    const body = messagesRequestOf(request);
    const result = await createMessage(body, input, gateway);
    if (result.kind === 'json') return reply.headers(result.headers).send(result.answer);
    await writeSse(reply, result.frames, {
      headers: result.headers,
      abort,
      pingMs: gateway.loaded.config.server.ssePingMs,
      // createMessage turns its own errors into events; this covers anything that escaped it.
      errorFrame: (error: GatewayError) => sseEvent('error', JSON.stringify(anthropicErrorBody(error.toBody(), error.status))),
      onError: (error) => streamFailed(request.log, info, error, abort.signal, 'messages stream ended with an error'),
    });
  });

  app.post('/v1/messages/count_tokens', { config: { errorBody: anthropicErrorBody, apiKeyHeader: true } }, async (request, reply) => {
    return reply.send(countTokens(parseMessagesRequest(request.body, { countTokens: true }), gateway.repairOptions));
  });
}
