import type { ChatMessage, ChatRequest, ContentPart as ChatPart, ToolCall } from '../api/chat-types.js';
import { errors } from '../errors.js';
import { bridgeToolChoice, bridgeTools, CUSTOM_INPUT, type BridgedTools } from './bridge-tools.js';
import { isFunctionCall, isFunctionOutput, isMessage, isReasoning, isRecord, itemText, type ContentPart, type Item, type ReasoningItem, type ResponsesRequest } from '../api/responses-types.js';

// Responses → Chat Completions, for every upstream without a native /responses: items become
// messages (function_call and custom_tool_call → assistant tool_calls, their outputs → tool
// messages; tools by bridge-tools.ts, names of namespaced and custom tools with them), a
// reasoning item's text becomes the `reasoning_content` of the assistant message that follows it
// (its encrypted_content is OpenAI's own: no chat upstream can read it), and request fields map to
// their chat twins. References must be resolved before this runs.

export interface ToChatOptions {
  /** Named in errors for what the bridge cannot carry. */
  provider: string;
  /** Translate what can be translated and skip the rest (telemetry views), instead of a 400. */
  lenient?: boolean;
  /** The request's tools as bridged (bridge.ts keeps them to map the answer back); made here when absent. */
  tools?: BridgedTools;
}

export function toChatRequest(request: ResponsesRequest, items: readonly Item[], options: ToChatOptions): ChatRequest {
  const bridged = options.tools ?? bridgeTools(request.tools ?? [], options.provider);
  const withTools = { ...options, tools: bridged };
  const messages: ChatMessage[] = [];
  if (typeof request.instructions === 'string' && request.instructions !== '') messages.push({ role: 'system', content: request.instructions });
  else if (Array.isArray(request.instructions)) messages.push(...toChatMessages(request.instructions, withTools, 'instructions'));
  messages.push(...toChatMessages(items, withTools, 'input'));

  const chat: ChatRequest = { model: request.model, messages };
  if (request.tool_choice !== undefined && typeof request.tool_choice !== 'string') {
    // Naming a tool the bridge left out is a 400 even when no tool is left.
    const choice = bridgeToolChoice(request.tool_choice, bridged, options.provider, options.lenient);
    if (bridged.tools.length > 0) chat.tool_choice = choice;
  } else if (request.tool_choice !== undefined && bridged.tools.length > 0) chat.tool_choice = request.tool_choice;
  if (bridged.tools.length > 0) {
    chat.tools = bridged.tools;
    if (request.parallel_tool_calls !== undefined) chat.parallel_tool_calls = request.parallel_tool_calls;
  }
  if (request.max_output_tokens !== undefined) chat.max_tokens = request.max_output_tokens;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (request.presence_penalty !== undefined) chat.presence_penalty = request.presence_penalty;
  if (request.frequency_penalty !== undefined) chat.frequency_penalty = request.frequency_penalty;
  if (request.user !== undefined) chat.user = request.user;
  if (request.stream === true) chat.stream = true;
  const format = isRecord(request.text) && isRecord(request.text.format) ? request.text.format : undefined;
  if (format?.type === 'json_object') chat.response_format = { type: 'json_object' };
  else if (format?.type === 'json_schema') {
    const { type: _type, ...schema } = format;
    chat.response_format = { type: 'json_schema', json_schema: schema };
  }
  // "none" means no reasoning, which is what an upstream without the parameter does anyway.
  const effort = isRecord(request.reasoning) ? request.reasoning.effort : undefined;
  if (typeof effort === 'string' && effort !== 'none') chat.reasoning_effort = effort;
  return chat;
}

export function toChatMessages(items: readonly Item[], options: ToChatOptions, param: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  /** The assistant message function calls join: the last one, unless results came after it. */
  let open: ChatMessage | null = null;
  /** Reasoning text waiting for the assistant message it came with. */
  let reasoning = '';
  const withReasoning = (message: ChatMessage): ChatMessage => {
    if (reasoning === '') return message;
    const joined: ChatMessage = { ...message, reasoning_content: reasoning };
    reasoning = '';
    return joined;
  };
  items.forEach((item, index) => {
    if (isMessage(item)) {
      if (item.role === 'assistant') {
        open = withReasoning({ role: 'assistant', content: itemText(item.content) });
        out.push(open);
        return;
      }
      open = null;
      reasoning = '';
      out.push({ role: item.role, content: toChatContent(item.content) });
    } else if (isFunctionCall(item) || isCustomCall(item)) {
      const call = toolCallOf(item, options.tools);
      if (open === null) {
        open = withReasoning({ role: 'assistant', content: null, tool_calls: [] });
        out.push(open);
      } else if (reasoning !== '') {
        // More reasoning before a further call of the same step: it joins that step's message.
        open.reasoning_content = `${typeof open.reasoning_content === 'string' ? `${open.reasoning_content}\n\n` : ''}${reasoning}`;
        reasoning = '';
      }
      open.tool_calls = [...(open.tool_calls ?? []), call];
    } else if (isFunctionOutput(item) || (item.type === 'custom_tool_call_output' && typeof item.call_id === 'string')) {
      out.push({ role: 'tool', tool_call_id: String(item.call_id), content: typeof item.output === 'string' ? item.output : itemText(item.output) });
      if (open?.tool_calls?.length) open = null;
    } else if (isReasoning(item)) {
      const text = reasoningText(item);
      if (text !== '') reasoning = reasoning === '' ? text : `${reasoning}\n\n${text}`;
    } else if (item.type === 'item_reference') {
      if (!options.lenient) throw errors.itemNotFound(String(item.id), `${param}[${index}]`);
    } else if (!options.lenient) {
      throw errors.invalidRequest(
        `Item type '${String(item.type)}' is not supported on provider '${options.provider}': toolgate bridges messages, function calls and their outputs to chat completions.`,
        `${param}[${index}].type`,
        'unsupported_item_type',
      );
    }
  });
  return out;
}

/** A reasoning item's readable text: its reasoning_text content, else its summary ('' for encrypted-only). */
function reasoningText(item: ReasoningItem): string {
  const content = Array.isArray(item.content) ? itemText(item.content) : '';
  if (content !== '') return content;
  return Array.isArray(item.summary) ? itemText(item.summary) : '';
}

/** Responses content → chat content: a string stays, text parts become `text`, images `image_url`. */
function toChatContent(content: string | ContentPart[]): string | ChatPart[] {
  if (typeof content === 'string') return content;
  const parts: ChatPart[] = content.map((part) => {
    if (part.type === 'input_image') {
      const url = typeof part.image_url === 'string' ? part.image_url : typeof part.file_id === 'string' ? part.file_id : '';
      return { type: 'image_url', image_url: { url, ...(typeof part.detail === 'string' ? { detail: part.detail } : {}) } };
    }
    if (part.type === 'input_file') return { type: 'text', text: `[file ${String(part.filename ?? part.file_id ?? '')}]` };
    return { type: 'text', text: typeof part.text === 'string' ? part.text : itemText([part]) };
  });
  return parts.every((part) => part.type === 'text') ? parts.map((part) => String(part.text)).join('') : parts;
}

const isCustomCall = (item: Item): boolean => item.type === 'custom_tool_call' && typeof item.call_id === 'string' && typeof item.name === 'string';

/** A function_call (its namespace joined into the name) or a custom_tool_call (its input as `{input}`) as a chat tool call. */
function toolCallOf(item: Item, tools: BridgedTools | undefined): ToolCall {
  const name = String(item.name);
  const namespace = typeof item.namespace === 'string' && item.namespace !== '' ? item.namespace : undefined;
  const chatName = tools ? tools.chatName(name, namespace) : name;
  const args = item.type === 'custom_tool_call' ? JSON.stringify({ [CUSTOM_INPUT]: typeof item.input === 'string' ? item.input : '' }) : String(item.arguments);
  return { id: String(item.call_id), type: 'function', function: { name: chatName, arguments: args } };
}
