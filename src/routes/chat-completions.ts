import type { FastifyInstance, FastifyReply } from 'fastify';
import { chatRequestOf } from './validated-body.js';
import { forgetRawJson, rawJsonOf, withRawJson } from '../api/raw-json.js';
import { withRefusalText } from '../api/refusal-text.js';
import type { ChatChunk, ChatCompletion } from '../api/chat-types.js';
import type { GatewayError } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { sseData, writeSseFrom } from '../http/sse.js';
import { runChat } from '../pipeline/chat.js';
import { clientAbortSignal, requestInfoOf, streamFailed, targetOf } from './request-context.js';

export function registerChatCompletions(app: FastifyInstance, gateway: Gateway): void {
  app.post('/v1/chat/completions', { config: { endpoint: 'chat_completions' } }, async (request, reply) => {
    const info = requestInfoOf(request, 'chat_completions');
    const abort = clientAbortSignal(reply);
    const chat = chatRequestOf(request);
    const result = await runChat(chat, { requestId: request.id, headers: request.headers, signal: abort.signal, log: request.log, info, target: targetOf(request) }, gateway);
    if (result.kind === 'json') return sendCompletion(reply.headers(result.headers), result.completion);
    const includeUsage = chat.stream_options?.include_usage === true;
    await writeSseFrom(reply, result.batches, (batch) => chatFrames(batch, includeUsage), {
      last: sseData('[DONE]'),
      headers: result.headers,
      abort,
      pingMs: gateway.loaded.config.server.ssePingMs,
      errorFrame: (error: GatewayError) => sseData(JSON.stringify(error.toBody())),
      onError: (error) => streamFailed(request.log, info, error, abort.signal, 'stream ended with an error'),
    });
  });
}

/**
 * The answer as the client gets it. An answer normalization left as it is (the same object the
 * adapter parsed, see api/raw-json.ts) goes out as the upstream's own JSON text: the same JSON value,
 * without serializing it again; a missing `refusal` goes into that text where that is provably exact
 * (api/refusal-text.ts, first in its message). Others are serialized.
 */
export function sendCompletion(reply: FastifyReply, completion: ChatCompletion): FastifyReply {
  const raw = rawJsonOf(completion);
  const lacks = withRefusalField(completion);
  if (raw === undefined) return reply.send(completion);
  if (lacks === undefined) return reply.type(JSON_TYPE).send(raw);
  const text = withRefusalText(raw, lacks);
  // The answer now holds the field; it keeps the text that says so, or none (serialized from now on).
  if (text === undefined) {
    forgetRawJson(completion);
    return reply.send(completion);
  }
  withRawJson(completion, text);
  return reply.type(JSON_TYPE).send(text);
}

/** Fastify's own content-type for an object payload. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * OpenAI's spec makes `message.refusal` required (nullable): null where nothing was refused.
 * Adds it where missing; says which choices lacked it, or undefined when none did.
 */
function withRefusalField(completion: ChatCompletion): boolean[] | undefined {
  let lacks: boolean[] | undefined;
  const choices = completion.choices;
  for (let i = 0; i < choices.length; i++) {
    const message = choices[i].message;
    if (message.refusal !== undefined) continue;
    message.refusal = null;
    lacks ??= choices.map(() => false);
    lacks[i] = true;
  }
  return lacks;
}

/**
 * The frames of one batch (the chunks one upstream read brought), written at once. Usage goes to the
 * client only when it asked (stream_options.include_usage); the gateway always asks upstream for
 * it, for its own token and cost metrics. An unchanged upstream chunk goes out as the upstream's
 * own bytes; others are serialized.
 */
function chatFrames(batch: ChatChunk[], includeUsage: boolean): string {
  let frames = '';
  for (const chunk of batch) {
    let text = rawJsonOf(chunk);
    if (!includeUsage) {
      if (chunk.choices.length === 0) continue;
      if ('usage' in chunk) {
        delete chunk.usage;
        text = undefined;
      }
    }
    frames += sseData(text ?? JSON.stringify(chunk));
  }
  return frames;
}
