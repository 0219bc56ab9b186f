import type { RawChatRequest } from '../api/chat-types.js';
import { errors } from '../errors.js';
import type { Gateway } from '../pipeline/gateway.js';
import { runChat } from '../pipeline/chat.js';
import { providerContext } from '../pipeline/provider-context.js';
import { targetFor, type ChatCallInput } from '../pipeline/request-info.js';
import { RequestTelemetry, taskHeaderOf } from '../pipeline/telemetry.js';
import type { CallScope } from '../pipeline/upstream-caller.js';
import type { ResolvedModel } from '../routing/router.js';
import { scopeOf } from '../util/scope.js';
import { encodeCompaction, transcriptOf } from './compaction.js';
import { toResponseUsage } from './from-chat.js';
import { callNative, jsonAttempt } from './native.js';
import { loadHistoryContext } from './context.js';
import { newId } from './ids.js';
import { repairItems } from './repair-items.js';
import { resolveReferences } from './service.js';
import { toChatRequest } from './to-chat.js';
import { isMessage, isRecord, itemText, type Item, type ResponsesRequest, type ResponseUsage } from '../api/responses-types.js';

// POST /v1/responses/compact: a conversation (input, and the previous_response_id chain) → a
// `response.compaction` object whose output is the conversation's user messages plus one
// `compaction` item. OpenAI compacts itself (relayed); on every other upstream the upstream model
// writes the summary (asked through the one chat path) and the item carries it for toolgate to
// read back (compaction.ts).

export interface CompactResource {
  id: string;
  object: 'response.compaction';
  created_at: number;
  output: Item[];
  usage: ResponseUsage;
}

/** The usage of a summary whose upstream reported none. */
const NO_USAGE = toResponseUsage({ prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 }) as ResponseUsage;

const PROMPT =
  'You compact conversations. Write a summary of the conversation below that lets an assistant continue it without the original: ' +
  'the goal, decisions and facts agreed, names, numbers and identifiers, tool calls made and what they returned, and what is still open. ' +
  'Write only the summary, as plain text.';

export async function compactResponse(request: ResponsesRequest, input: ChatCallInput, gateway: Gateway): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
  input.info.requested(request.model, false);
  const target = targetFor(request.model, input, gateway.router);
  if (target.provider.responses?.compact) return { body: await relay(request, target, input, gateway), headers: {} };

  const items = repairItems(request.input, gateway.repairOptions).items;
  const store = gateway.responseStore.forScope(scopeOf(input.info.keyName));
  const context = await loadHistoryContext(store, items, { previousResponseId: request.previous_response_id, restore: false });
  if (context.previousUnknown) throw errors.previousResponseNotFound(request.previous_response_id as string);
  const conversation = [...context.previous, ...resolveReferences(items, context)];
  if (conversation.length === 0) throw errors.invalidRequest("Missing required parameter: 'input'.", 'input', 'missing_required_parameter');

  const chat: RawChatRequest = { model: request.model, messages: [{ role: 'system', content: PROMPT }, { role: 'user', content: transcriptOf(conversation) }], stream: false };
  const result = await runChat(chat, input, gateway);
  if (result.kind !== 'json') throw errors.internal();
  const summary = result.completion.choices[0]?.message?.content;
  const provider = target.provider.settings.name;
  if (typeof summary !== 'string' || summary.trim() === '') throw errors.upstreamBadResponse(provider, 'an empty compaction summary');
  const kept = conversation.filter((item) => isMessage(item) && item.role === 'user');
  const output: Item[] = [
    ...kept.map((item) => ({ id: newId('msg'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: itemText(item.content) }] })),
    { id: newId('cmp'), type: 'compaction', encrypted_content: encodeCompaction(summary) },
  ];
  const body: CompactResource = { id: newId('resp'), object: 'response.compaction', created_at: Math.floor(Date.now() / 1000), output, usage: toResponseUsage(result.completion.usage) ?? NO_USAGE };
  return { body: body as unknown as Record<string, unknown>, headers: result.headers };
}

/** OpenAI compacts itself: the request goes to its /responses/compact through the one upstream caller. */
async function relay(request: ResponsesRequest, target: ResolvedModel, input: ChatCallInput, gateway: Gateway): Promise<Record<string, unknown>> {
  const view = toChatRequest(request, request.input, { provider: target.provider.settings.name, lenient: true });
  const telemetry = new RequestTelemetry(gateway, input.info, view, taskHeaderOf(input.headers));
  const scope: CallScope = { gateway, context: providerContext(target, input, gateway), telemetry, info: input.info };
  const { result } = await callNative(
    scope,
    target,
    (native, candidate, context) =>
      jsonAttempt(() => {
        if (!native.compact) throw errors.internal(`Provider '${candidate.provider.settings.name}' cannot compact.`);
        return native.compact({ ...request, model: candidate.upstreamModel }, context);
      }),
    (native) => native.compact !== undefined,
  );
  if (!isRecord(result) || !Array.isArray(result.output)) throw errors.upstreamBadResponse(target.provider.settings.name, 'a compaction without output');
  return result;
}
