import type { ChatMessage, ContentPart, RawChatMessage, RawChatRequest, ToolCall, ToolDefinition } from '../api/chat-types.js';
import { errors } from '../errors.js';
import { isRecord } from '../is-record.js';
import type { MessagesHistory } from './repair/types.js';
import { applyTargetParams, type Target } from './target-params.js';
import { referenceText, selectTools } from './tool-search.js';
import type { Block, MessagesRequest, ToolParam } from './types.js';

// Messages → Chat Completions (after the dialect passes): system blocks become one system message;
// a user turn's tool_result blocks become tool messages (first, right after the calls they
// answer) and its other blocks one user message; an assistant turn's text, thinking and tool_use
// blocks become one assistant message (content, reasoning_content, tool_calls). Fields map to
// their chat twins; a block chat cannot carry is refused with a 400 naming the field, a parameter
// the target cannot take is left out and named in the warnings (target-params.ts). The chat
// repair passes run after this, on the result, as for any chat request.

export interface ToChatOptions {
  /** Named in errors for what the translation cannot carry. */
  provider: string;
  /** The target's provider type and upstream model: which parameters it takes (target-params.ts). */
  target: Target;
  /** Collects what the translation could not carry (`kind` → count, for x-toolgate-warnings). */
  warnings?: Map<string, number>;
}

/** The options and what the translation learned from the request before the messages. */
interface Context extends ToChatOptions {
  /** Names of the tools declared upstream (tool_reference blocks are told whether theirs is). */
  declared: ReadonlySet<string>;
}

/** Adds one `kind` to the options' warnings. */
export function warn(options: Pick<ToChatOptions, 'warnings'>, kind: string): void {
  options.warnings?.set(kind, (options.warnings.get(kind) ?? 0) + 1);
}

export function toChatRequest(request: MessagesRequest, history: MessagesHistory, toChat: ToChatOptions): RawChatRequest {
  const selection = selectTools(request, history);
  if (selection.serverSearch) warn(toChat, 'tool_search_not_run');
  const options: Context = { ...toChat, declared: selection.names };
  const messages: RawChatMessage[] = [];
  const system = history.system === undefined ? '' : textOf(history.system, 'system', options);
  if (system !== '') messages.push({ role: 'system', content: system });
  history.messages.forEach((message, index) => {
    const param = `messages[${index}].content`;
    if (message.role === 'assistant') messages.push(assistantMessage(message.content, param, options));
    else if (message.role === 'system') messages.push({ role: 'system', content: textOf(message.content, param, options) });
    else messages.push(...userMessages(message.content, param, options));
  });

  const chat: RawChatRequest = { model: request.model, messages };
  applyTargetParams(chat, request, options.target, (kind) => warn(options, kind));
  const tools = selection.declared.map(({ tool, index }) => toChatTool(tool, index, options));
  const choice = request.tool_choice;
  if (tools.length > 0) {
    chat.tools = tools;
    if (choice !== undefined) chat.tool_choice = toolChoiceOf(choice);
    if (choice?.disable_parallel_tool_use === true) chat.parallel_tool_calls = false;
  }
  if (request.stop_sequences !== undefined && request.stop_sequences.length > 0) chat.stop = request.stop_sequences;
  if (request.temperature !== undefined) chat.temperature = request.temperature;
  if (request.top_p !== undefined) chat.top_p = request.top_p;
  if (typeof request.metadata?.user_id === 'string') chat.user = request.metadata.user_id;
  if (request.stream === true) chat.stream = true;
  return chat;
}

/** Anthropic's tool_choice on chat's: `any` is chat's `required`, `tool` names the function. */
function toolChoiceOf(choice: NonNullable<MessagesRequest['tool_choice']>): RawChatRequest['tool_choice'] {
  if (choice.type === 'any') return 'required';
  if (choice.type === 'tool') return { type: 'function', function: { name: String(choice.name) } };
  return choice.type; // auto, none
}

function toChatTool(tool: ToolParam, index: number, options: ToChatOptions): ToolDefinition {
  if (tool.type !== undefined && tool.type !== 'custom') {
    throw errors.invalidRequest(
      `Tool type '${tool.type}' is not supported on provider '${options.provider}': only client tools (name, description, input_schema) can be translated.`,
      `tools[${index}].type`,
      'unsupported_tool_type',
    );
  }
  const fn: ToolDefinition['function'] = { name: tool.name, parameters: isRecord(tool.input_schema) ? tool.input_schema : { type: 'object', properties: {} } };
  if (typeof tool.description === 'string') fn.description = tool.description;
  return { type: 'function', function: fn };
}

function assistantMessage(content: string | Block[], param: string, options: Context): ChatMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  let reasoning = '';
  const calls: ToolCall[] = [];
  content.forEach((block, at) => {
    if (block.type === 'text') text += String(block.text ?? '');
    else if (block.type === 'thinking') reasoning += String(block.thinking ?? '');
    else if (block.type === 'redacted_thinking') return; // encrypted for Anthropic only: nothing another upstream can read
    else if (block.type === 'tool_use') calls.push({ id: String(block.id ?? ''), type: 'function', function: { name: String(block.name ?? ''), arguments: argumentsOf(block.input) } });
    else throw unsupportedBlock(block.type, `${param}[${at}]`, options);
  });
  const message: ChatMessage = { role: 'assistant', content: calls.length > 0 && text === '' ? null : text };
  if (reasoning !== '') message.reasoning_content = reasoning;
  if (calls.length > 0) message.tool_calls = calls;
  return message;
}

/** tool_use input as chat arguments: an object as JSON; a string as sent (chat repair checks it). */
function argumentsOf(input: unknown): string {
  if (typeof input === 'string') return input;
  return JSON.stringify(input ?? {});
}

function userMessages(content: string | Block[], param: string, options: Context): ChatMessage[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const results: ChatMessage[] = [];
  const parts: ContentPart[] = [];
  content.forEach((block, at) => {
    if (block.type === 'tool_result') {
      results.push({ role: 'tool', tool_call_id: String(block.tool_use_id ?? ''), content: resultText(block, `${param}[${at}].content`, parts, options) });
      return;
    }
    if (block.type === 'thinking' || block.type === 'redacted_thinking') return;
    parts.push(partOf(block, `${param}[${at}]`, options));
  });
  if (parts.length === 0) return results;
  const text = parts.every((part) => part.type === 'text') ? parts.map((part) => String(part.text)).join('\n') : undefined;
  return [...results, { role: 'user', content: text ?? parts }];
}

/** A tool_result's content as tool message text; its images go to the user message that follows. */
function resultText(block: Block, param: string, images: ContentPart[], options: Context): string {
  const content = block.content;
  let text = '';
  if (typeof content === 'string') text = content;
  else if (Array.isArray(content)) {
    const pieces: string[] = [];
    content.forEach((inner, at) => {
      if (isRecord(inner) && inner.type === 'image') images.push(partOf(inner as Block, `${param}[${at}]`, options));
      else if (isRecord(inner) && inner.type === 'tool_reference') pieces.push(referenceText(String(inner.tool_name ?? ''), options.declared));
      else if (isRecord(inner) && typeof inner.text === 'string') pieces.push(inner.text);
      else if (typeof inner === 'string') pieces.push(inner);
      else throw unsupportedBlock(isRecord(inner) ? String(inner.type) : typeof inner, `${param}[${at}]`, options);
    });
    text = pieces.join('\n');
  }
  return block.is_error === true ? `Error: ${text}` : text;
}

function partOf(block: Block, param: string, options: Context): ContentPart {
  if (block.type === 'text') return { type: 'text', text: String(block.text ?? '') };
  if (block.type === 'tool_reference') return { type: 'text', text: referenceText(String(block.tool_name ?? ''), options.declared) };
  if (block.type === 'image' && isRecord(block.source)) {
    const source = block.source;
    if (source.type === 'base64' && typeof source.data === 'string') return { type: 'image_url', image_url: { url: `data:${String(source.media_type ?? 'image/png')};base64,${source.data}` } };
    if (source.type === 'url' && typeof source.url === 'string') return { type: 'image_url', image_url: { url: source.url } };
  }
  if (block.type === 'document' && isRecord(block.source) && block.source.type === 'text' && typeof block.source.data === 'string') {
    return { type: 'text', text: block.source.data };
  }
  throw unsupportedBlock(block.type, param, options);
}

/** System blocks as one text (chat upstreams take a string everywhere). */
function textOf(content: string | Block[], param: string, options: ToChatOptions): string {
  if (typeof content === 'string') return content;
  return content
    .map((block, at) => {
      if (block.type !== 'text') throw unsupportedBlock(block.type, `${param}[${at}]`, options);
      return String(block.text ?? '');
    })
    .join('\n\n');
}

function unsupportedBlock(type: string, param: string, options: ToChatOptions): Error {
  return errors.invalidRequest(
    `Content block type '${type}' is not supported on provider '${options.provider}': toolgate translates text, image, tool_use, tool_result and thinking blocks to chat completions.`,
    `${param}.type`,
    'unsupported_content_type',
  );
}
