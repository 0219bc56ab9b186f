import { randomBytes } from 'node:crypto';
import type { AssistantMessage, ChatChoice, ChatCompletion, FinishReason, Usage } from '../api/chat-types.js';
import type { RepairBudget } from '../util/bounded-json.js';
import { readArgumentsObject } from '../toolcalls/arguments.js';
import { reasoningTextOf } from '../responses/from-chat.js';
import type { MessageObject, MessageUsage, MessagesRequest, OutputBlock, StopReason } from './types.js';

// Chat Completions → Messages: the (normalized) answer becomes content blocks in the order a
// Claude model writes them (thinking, text, tool_use), finish_reason becomes stop_reason and usage
// Anthropic's four counters (cache counters 0 where the upstream says nothing).

export function newMessageId(): string {
  return `msg_${randomBytes(12).toString('hex')}`;
}

export function toMessageUsage(usage: Usage | undefined | null): MessageUsage {
  const cached = usage?.prompt_tokens_details?.cached_tokens ?? 0;
  // Anthropic's input_tokens leave out what was read from the cache.
  return { input_tokens: Math.max(0, (usage?.prompt_tokens ?? 0) - cached), output_tokens: usage?.completion_tokens ?? 0, cache_creation_input_tokens: 0, cache_read_input_tokens: cached };
}

/** The stop reason, and the stop sequence when the upstream says which one matched (vLLM's `stop_reason`). */
// A cut-off answer says so even when a (partial) call is in it, as Anthropic does: a client must not
// run a call whose input was cut off (docs/answers.md: the reason stays).
export function stopOf(finish: FinishReason | null | undefined, matched: unknown, request: Pick<MessagesRequest, 'stop_sequences'>, calls: boolean): { stop_reason: StopReason; stop_sequence: string | null } {
  if (finish === 'length') return { stop_reason: 'max_tokens', stop_sequence: null };
  if (finish === 'content_filter') return { stop_reason: 'refusal', stop_sequence: null };
  if (finish === 'tool_calls' || finish === 'function_call' || calls) return { stop_reason: 'tool_use', stop_sequence: null };
  if (typeof matched === 'string' && request.stop_sequences?.includes(matched)) return { stop_reason: 'stop_sequence', stop_sequence: matched };
  return { stop_reason: 'end_turn', stop_sequence: null };
}

/** How the answer's translation reaches its budget and tells what it changed. */
export interface AnswerOptions {
  /** The tenant's repair budget (bounded jsonrepair); without it, arguments are only parsed. */
  budget?: RepairBudget;
  /** Called once per tool_use whose input had to be repaired or replaced (x-toolgate-warnings kinds). */
  warn?: (kind: 'tool_input_repaired' | 'tool_input_replaced') => void;
}

/**
 * tool_use input from chat arguments: always an object, as Anthropic's API guarantees and clients
 * rely on. Arguments are JSON text of an object (native calls pass as the upstream sent them, text
 * calls as toolgate wrote them); a double-encoded object ("{\"a\":1}") and JSON jsonrepair fixes
 * (bounded, the tenant's budget) are read as the object they stand for (`tool_input_repaired`,
 * toolcalls/arguments.ts readArgumentsObject); anything else — not JSON, cut off before its end, an
 * array, a number — becomes `{}` (`tool_input_replaced`): a client
 * validates it against the tool's schema and tells the model what is missing.
 */
export function inputOf(args: string, options: AnswerOptions = {}): Record<string, unknown> {
  const text = args.trim();
  if (text === '') return {};
  const read = readArgumentsObject(text, options.budget);
  if (typeof read === 'object') {
    if (read.repaired) options.warn?.('tool_input_repaired');
    return read.value;
  }
  options.warn?.('tool_input_replaced');
  return {};
}

export function blocksOf(message: AssistantMessage, options: AnswerOptions = {}): OutputBlock[] {
  const blocks: OutputBlock[] = [];
  const reasoning = reasoningTextOf(message);
  if (reasoning !== '') blocks.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof message.content === 'string' && message.content !== '') blocks.push({ type: 'text', text: message.content });
  for (const call of message.tool_calls ?? []) blocks.push({ type: 'tool_use', id: call.id, name: call.function.name, input: inputOf(call.function.arguments, options) });
  return blocks;
}

export function messageFromCompletion(request: MessagesRequest, completion: ChatCompletion, id = newMessageId(), options: AnswerOptions = {}): MessageObject {
  const choice: ChatChoice | undefined = completion.choices[0];
  const content = choice ? blocksOf(choice.message, options) : [];
  const stop = stopOf(choice?.finish_reason, choice?.stop_reason, request, content.some((block) => block.type === 'tool_use'));
  return { id, type: 'message', role: 'assistant', model: request.model, content, ...stop, usage: toMessageUsage(completion.usage) };
}
