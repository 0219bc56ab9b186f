import { errors } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { sseEvent } from '../http/sse.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { noteDialectRepairs, runEdge } from '../edge/run.js';
import type { EdgeDialect, EdgeResult } from '../edge/types.js';
import { MessageEventSynthesizer, type MessageEvent } from './events.js';
import { messageFromCompletion, newMessageId } from './from-chat.js';
import { repairMessages } from './repair/index.js';
import { toChatRequest } from './to-chat.js';
import { mergeRepairHeaders } from '../responses/prepared.js';
import type { MessageObject, MessagesRequest } from './types.js';

// `POST /v1/messages`, read top to bottom: (validated by the route) → the dialect's repair passes
// → translate to chat → the one chat path (runEdge → runChat) → the answer as a Message or as
// Messages stream events. Nothing is stored: a Messages conversation travels whole in each request.

/** `request` was validated by the route's preValidation (api/validated-body.ts). */
export async function createMessage(request: MessagesRequest, input: ChatCallInput, gateway: Gateway): Promise<EdgeResult<MessageObject>> {
  const repaired = repairMessages(request, gateway.repairOptions);
  const repairs = noteDialectRepairs(repaired.findings, request.messages, repaired.history.messages, input, gateway);
  const provider = targetFor(request.model, input, gateway.router).provider.settings;
  const warnings = new Map<string, number>();
  const chat = toChatRequest(request, repaired.history, { provider: provider.name, optionalParams: provider.type !== 'openai', warnings });
  // Limits are judged on what goes upstream, as on chat: one turn of N tool_result blocks is N chat messages.
  const maxMessages = gateway.loaded.config.limits.maxMessages;
  if (chat.messages.length > maxMessages) throw errors.tooManyTranslated('messages', maxMessages, chat.messages.length);
  const translated = warningsHeader(warnings);
  if (translated) input.log.debug({ warnings: translated }, 'messages request translated with warnings');
  return runEdge(chat, messagesDialect(request), input, gateway, { ...repairs, warnings: mergeRepairHeaders(repairs.warnings, translated) });
}

export function messagesDialect(request: MessagesRequest): EdgeDialect<MessageObject, MessageEvent> {
  const id = newMessageId();
  return {
    name: 'messages',
    answer: (completion) => messageFromCompletion(request, completion, id),
    events: () => new MessageEventSynthesizer(request, id),
    frame: (event) => sseEvent(event.type, JSON.stringify(event)),
  };
}

/** `kind=count,…` of what the translation could not carry; undefined when nothing. */
export function warningsHeader(warnings: ReadonlyMap<string, number>): string | undefined {
  return warnings.size === 0 ? undefined : [...warnings].map(([kind, count]) => `${kind}=${count}`).join(',');
}
