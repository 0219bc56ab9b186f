import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { MessagesRequest } from '../messages/types.js';
import { parseMessagesRequest } from '../messages/schema.js';
import type { ResponsesRequest } from '../api/responses-types.js';
import { parseResponsesRequest } from '../responses/schema.js';
import { endpointOf } from './request-context.js';
import { parseChatRequest } from '../api/chat-schema.js';
import type { RawChatRequest } from '../api/chat-types.js';

// Request path: route → validate → guards and limits → repair → … The body of a pipeline route is
// validated in preValidation, before any guard (preHandler) reads it, so a guard only ever sees
// checked fields (a string model, arrays where arrays belong) and a malformed body is a 400
// naming its field before it can count against a key's rate limit. The route reads the same
// validated request: nothing is parsed twice.

export type ValidatedBody =
  | { kind: 'chat'; request: RawChatRequest }
  | { kind: 'responses'; request: ResponsesRequest }
  | { kind: 'messages'; request: MessagesRequest };

const BODY = Symbol('toolgate.validatedBody');
type WithBody = FastifyRequest & { [BODY]?: ValidatedBody };

/** What the route's body is validated as: chat and Responses creation; other routes read their own. */
function validate(request: FastifyRequest): ValidatedBody | undefined {
  if (request.method !== 'POST') return undefined;
  const endpoint = endpointOf(request);
  if (endpoint === 'chat_completions') return { kind: 'chat', request: parseChatRequest(request.body) };
  if (endpoint === 'responses') return { kind: 'responses', request: parseResponsesRequest(request.body) };
  if (endpoint === 'messages') return { kind: 'messages', request: parseMessagesRequest(request.body) };
  return undefined;
}

export function registerBodyValidation(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    let body: ValidatedBody | undefined;
    try {
      body = validate(request);
    } catch (error) {
      done(error as Error);
      return;
    }
    if (body) (request as WithBody)[BODY] = body;
    done();
  });
}

/** The validated body (undefined on routes whose body is not validated here). */
export function validatedBodyOf(request: FastifyRequest): ValidatedBody | undefined {
  return (request as WithBody)[BODY];
}

/** The chat request validated for this route (validated now if the hook did not run). */
export function chatRequestOf(request: FastifyRequest): RawChatRequest {
  const body = validatedBodyOf(request);
  return body?.kind === 'chat' ? body.request : parseChatRequest(request.body);
}

/** The Responses request validated for this route (validated now if the hook did not run). */
export function responsesRequestOf(request: FastifyRequest): ResponsesRequest {
  const body = validatedBodyOf(request);
  return body?.kind === 'responses' ? body.request : parseResponsesRequest(request.body);
}

/** The Messages request validated for this route (validated now if the hook did not run). */
export function messagesRequestOf(request: FastifyRequest): MessagesRequest {
  const body = validatedBodyOf(request);
  return body?.kind === 'messages' ? body.request : parseMessagesRequest(request.body);
}
