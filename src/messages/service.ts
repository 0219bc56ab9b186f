import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { sseEvent } from '../http/sse.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { noteDialectRepairs, runEdge } from '../edge/run.js';
import type { EdgeDialect, EdgeResult } from '../edge/types.js';
import { MessageEventSynthesizer, type MessageEvent } from './events.js';
import { messageFromCompletion, newMessageId, type AnswerOptions } from './from-chat.js';
import { repairMessages } from './repair/index.js';
import { toChatRequest } from './to-chat.js';
import { countsHeader, mergeRepairHeaders } from '../edge/repair-headers.js';
import { scopeOf } from '../util/scope.js';
import type { MessageObject, MessagesRequest } from './types.js';

// `POST /v1/messages`, read top to bottom: (validated by the route) → the dialect's repair passes
// → translate to chat → the one chat path (runEdge → runChat) → the answer as a Message or as
// Messages stream events. Nothing is stored: a Messages conversation travels whole in each request.

/** `request` was validated by the route's preValidation (routes/validated-body.ts). */
export async function createMessage(request: MessagesRequest, input: ChatCallInput, gateway: Gateway): Promise<EdgeResult<MessageObject>> {
  const repaired = repairMessages(request, gateway.repairOptions);
  const repairs = noteDialectRepairs(repaired.findings, request.messages, repaired.history.messages, input, gateway);
  const target = targetFor(request.model, input, gateway.router);
  const provider = target.provider.settings;
  const warnings = new Map<string, number>();
  const chat = toChatRequest(request, repaired.history, { provider: provider.name, target: { type: provider.type, model: target.upstreamModel }, warnings });
  // Limits are judged on what goes upstream, as on chat: one turn of N tool_result blocks is N chat messages.
  const maxMessages = gateway.loaded.config.limits.maxMessages;
  if (chat.messages.length > maxMessages) throw errors.tooManyTranslated('messages', maxMessages, chat.messages.length);
  const translated = countsHeader(warnings);
  if (translated) input.log.debug({ warnings: translated }, 'messages request translated with warnings');
  // tool_use inputs the answer's translation had to repair or replace (said on JSON answers).
  const inputs = new Map<string, number>();
  const options: AnswerOptions = { budget: gateway.workBudgets.forScope(scopeOf(input.info.keyName)).repair, warn: (kind) => inputs.set(kind, (inputs.get(kind) ?? 0) + 1) };
  const result = await runEdge(chat, messagesDialect(request, options), input, gateway, { ...repairs, warnings: mergeRepairHeaders(repairs.warnings, translated) });
  const answered = countsHeader(inputs);
  if (result.kind === 'json' && answered) {
    result.headers['x-toolgate-warnings'] = mergeRepairHeaders(result.headers['x-toolgate-warnings'], answered) ?? answered;
    input.info.repairHeaders(result.headers['x-toolgate-repairs'], result.headers['x-toolgate-warnings']);
  }
  return result;
}

export function messagesDialect(request: MessagesRequest, options: AnswerOptions = {}): EdgeDialect<MessageObject, MessageEvent> {
  const id = newMessageId();
  return {
    name: 'messages',
    answer: (completion) => messageFromCompletion(request, completion, id, options),
    events: () => new MessageEventSynthesizer(request, id, options),
    frame: (event) => sseEvent(event.type, JSON.stringify(event)),
  };
}
