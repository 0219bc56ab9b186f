import type { FastifyInstance } from 'fastify';
import type { Gateway } from '../gateway.js';
import { writeSse } from '../http/sse.js';
import { errorFrame, handleChatCompletion } from '../pipeline/chat.js';
import { requestInfoOf } from './request-context.js';

export function registerChatCompletions(app: FastifyInstance, gateway: Gateway): void {
  app.post('/v1/chat/completions', async (request, reply) => {
    const info = requestInfoOf(request, 'chat_completions');
    const abort = new AbortController();
    // A client that disconnects before the answer aborts the upstream request too.
    reply.raw.once('close', () => {
      if (!reply.raw.writableFinished) abort.abort();
    });
    const outcome = await handleChatCompletion(
      { body: request.body, requestId: request.id, headers: request.headers, signal: abort.signal, log: request.log, info },
      gateway,
    );
    if (outcome.kind === 'json') {
      return reply.headers(outcome.headers).send(outcome.body);
    }
    await writeSse(reply, outcome.frames, {
      headers: outcome.headers,
      abort,
      errorFrame,
      onError: (error) => {
        info.error = error instanceof Error ? error.message : String(error);
        request.log.warn({ err: error }, 'stream ended with an error');
      },
    });
  });
}
