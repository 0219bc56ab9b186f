import type { ChatChunk, ChatCompletion, ChatMessage, ToolCall } from '../api/chat-types.js';
import { isRecord } from '../is-record.js';
import { GEN_AI } from './attributes.js';

// What an upstream answer tells a CLIENT span, read from the three shapes an attempt can return:
// a chat completion (OpenAI-compatible and Gemini adapters alike), chat chunks, and the native
// Responses API's objects and events. Plus the opt-in content capture in the semantic conventions'
// message format (gen-ai-input-messages.json / gen-ai-output-messages.json), bounded in size.
// Pure functions: no OpenTelemetry import.

export interface AnswerFacts {
  id?: string;
  model?: string;
  finishReasons: string[];
  inputTokens?: number;
  outputTokens?: number;
}

export interface MessagePart {
  type: 'text' | 'tool_call' | 'tool_call_response';
  content?: string;
  id?: string | null;
  name?: string;
  arguments?: string;
  response?: string;
}

export interface CapturedMessage {
  role: string;
  parts: MessagePart[];
  finish_reason?: string;
}

/** Longest text kept per part, and per captured attribute (JSON characters), when content is captured. */
export const CONTENT_LIMITS = { partChars: 8_192, totalChars: 131_072 } as const;

export function factsOfCompletion(completion: ChatCompletion): AnswerFacts {
  const usage = completion.usage;
  return {
    ...(typeof completion.id === 'string' && completion.id ? { id: completion.id } : {}),
    ...(typeof completion.model === 'string' && completion.model ? { model: completion.model } : {}),
    finishReasons: (completion.choices ?? []).map((choice) => choice.finish_reason ?? 'unknown'),
    ...tokens(usage?.prompt_tokens, usage?.completion_tokens),
  };
}

/** A native Responses object (`object: 'response'`): its status is the finish reason. */
export function factsOfResponse(response: Record<string, unknown>): AnswerFacts {
  const usage = isRecord(response.usage) ? response.usage : {};
  const incomplete = isRecord(response.incomplete_details) ? response.incomplete_details.reason : undefined;
  const reason = typeof incomplete === 'string' ? incomplete : typeof response.status === 'string' ? response.status : undefined;
  return {
    ...(typeof response.id === 'string' ? { id: response.id } : {}),
    ...(typeof response.model === 'string' ? { model: response.model } : {}),
    finishReasons: reason ? [reason] : [],
    ...tokens(usage.input_tokens, usage.output_tokens),
  };
}

function tokens(input: unknown, output: unknown): Pick<AnswerFacts, 'inputTokens' | 'outputTokens'> {
  return {
    ...(typeof input === 'number' ? { inputTokens: input } : {}),
    ...(typeof output === 'number' ? { outputTokens: output } : {}),
  };
}

/** Folds a stream's items into its facts (and, when asked, choice 0's text and calls), in one pass. */
export class StreamFacts {
  readonly facts: AnswerFacts = { finishReasons: [] };
  private readonly reasons = new Map<number, string>();
  private text = '';
  private readonly calls: Array<{ id?: string; name: string; arguments: string }> = [];

  constructor(private readonly keepContent: boolean) {}

  observe(item: unknown): void {
    if (Array.isArray(item)) {
      for (const each of item) this.observe(each);
      return;
    }
    if (!isRecord(item)) return;
    if (item.object === 'chat.completion.chunk') this.chunk(item as unknown as ChatChunk);
    else if (typeof item.type === 'string' && isRecord(item.data) && isRecord(item.data.response)) this.responseEvent(item.data.response);
  }

  private chunk(chunk: ChatChunk): void {
    if (!this.facts.id && typeof chunk.id === 'string' && chunk.id) this.facts.id = chunk.id;
    if (!this.facts.model && typeof chunk.model === 'string' && chunk.model) this.facts.model = chunk.model;
    if (chunk.usage) Object.assign(this.facts, tokens(chunk.usage.prompt_tokens, chunk.usage.completion_tokens));
    for (const choice of chunk.choices ?? []) {
      if (choice.finish_reason) this.reasons.set(choice.index, choice.finish_reason);
      if (!this.keepContent || choice.index !== 0) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && this.text.length < CONTENT_LIMITS.partChars) this.text += delta.content;
      for (const part of delta.tool_calls ?? []) {
        const call = (this.calls[part.index] ??= { name: '', arguments: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments && call.arguments.length < CONTENT_LIMITS.partChars) call.arguments += part.function.arguments;
      }
    }
    this.facts.finishReasons = [...this.reasons.values()];
  }

  /** `response.created` … `response.completed`: the last one seen carries the final facts. */
  private responseEvent(response: Record<string, unknown>): void {
    const facts = factsOfResponse(response);
    Object.assign(this.facts, facts);
  }

  /** Choice 0 as gen_ai.output.messages (chat streams only). */
  output(): CapturedMessage[] | undefined {
    if (!this.keepContent || (this.text === '' && this.calls.length === 0)) return undefined;
    const parts: MessagePart[] = [];
    if (this.text) parts.push(textPart(this.text));
    for (const call of this.calls.filter(Boolean)) parts.push(callPart(call.id, call.name, call.arguments));
    return [{ role: 'assistant', parts, ...(this.reasons.has(0) ? { finish_reason: this.reasons.get(0) } : {}) }];
  }
}

/**
 * The request's sampling settings as gen_ai.request.* (the conventions' Recommended attributes):
 * numbers only when they are numbers, stop sequences as a list, the choice count when it is not 1.
 */
export function requestSettingsOf(body: unknown): Record<string, number | boolean | string[]> {
  if (!isRecord(body)) return {};
  const out: Record<string, number | boolean | string[]> = {};
  const number = (name: string, value: unknown): void => {
    if (typeof value === 'number' && Number.isFinite(value)) out[name] = value;
  };
  number(GEN_AI.requestMaxTokens, body.max_completion_tokens ?? body.max_tokens ?? body.max_output_tokens);
  number(GEN_AI.requestTemperature, body.temperature);
  number(GEN_AI.requestTopP, body.top_p);
  number(GEN_AI.requestFrequencyPenalty, body.frequency_penalty);
  number(GEN_AI.requestPresencePenalty, body.presence_penalty);
  number(GEN_AI.requestSeed, body.seed);
  if (typeof body.n === 'number' && body.n !== 1) number(GEN_AI.requestChoiceCount, body.n);
  if (typeof body.stop === 'string') out[GEN_AI.requestStopSequences] = [body.stop];
  else if (Array.isArray(body.stop)) out[GEN_AI.requestStopSequences] = body.stop.filter((stop): stop is string => typeof stop === 'string').slice(0, 16);
  out[GEN_AI.requestStream] = body.stream === true;
  return out;
}

/** The messages of a chat body, or the `input` of a Responses body, as gen_ai.input.messages. */
export function inputMessagesOf(body: unknown): CapturedMessage[] | undefined {
  if (!isRecord(body)) return undefined;
  if (Array.isArray(body.messages)) return body.messages.filter(isRecord).map((message) => chatMessage(message as unknown as ChatMessage));
  if (typeof body.input === 'string') return [{ role: 'user', parts: [textPart(body.input)] }];
  if (Array.isArray(body.input)) return body.input.filter(isRecord).map(responsesItem);
  return undefined;
}

/** A chat completion's choices as gen_ai.output.messages. */
export function outputMessagesOf(completion: ChatCompletion): CapturedMessage[] {
  return (completion.choices ?? []).map((choice) => ({
    ...chatMessage({ role: 'assistant', content: choice.message?.content ?? null, tool_calls: choice.message?.tool_calls } as ChatMessage),
    finish_reason: choice.finish_reason ?? 'unknown',
  }));
}

/** A Responses object's output items as gen_ai.output.messages. */
export function outputItemsOf(response: Record<string, unknown>): CapturedMessage[] | undefined {
  return Array.isArray(response.output) ? response.output.filter(isRecord).map(responsesItem) : undefined;
}

function chatMessage(message: ChatMessage): CapturedMessage {
  const parts: MessagePart[] = [];
  if (message.role === 'tool') {
    parts.push({ type: 'tool_call_response', id: message.tool_call_id ?? null, response: clip(textOf(message.content)) });
    return { role: 'tool', parts };
  }
  const text = textOf(message.content);
  if (text) parts.push(textPart(text));
  for (const call of (message.tool_calls ?? []) as ToolCall[]) {
    if (isRecord(call)) parts.push(callPart(call.id, call.function?.name ?? '', call.function?.arguments ?? ''));
  }
  return { role: String(message.role), parts };
}

function responsesItem(item: Record<string, unknown>): CapturedMessage {
  if (item.type === 'function_call') return { role: 'assistant', parts: [callPart(stringOr(item.call_id), stringOr(item.name) ?? '', stringOr(item.arguments) ?? '')] };
  if (item.type === 'function_call_output') return { role: 'tool', parts: [{ type: 'tool_call_response', id: stringOr(item.call_id) ?? null, response: clip(textOf(item.output)) }] };
  return { role: typeof item.role === 'string' ? item.role : 'user', parts: [textPart(textOf(item.content))] };
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  let out = '';
  for (const part of content) {
    if (isRecord(part) && typeof part.text === 'string') out += part.text;
    if (out.length >= CONTENT_LIMITS.partChars) break;
  }
  return out;
}

function textPart(text: string): MessagePart {
  return { type: 'text', content: clip(text) };
}

function callPart(id: string | undefined, name: string, args: unknown): MessagePart {
  return { type: 'tool_call', id: id ?? null, name, arguments: clip(typeof args === 'string' ? args : JSON.stringify(args) ?? '') };
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function clip(text: string): string {
  return text.length <= CONTENT_LIMITS.partChars ? text : `${text.slice(0, CONTENT_LIMITS.partChars)}…[${text.length - CONTENT_LIMITS.partChars} more characters]`;
}

/**
 * JSON for a content attribute, at most totalChars: messages past the budget are left out and
 * counted in a last `{role: 'toolgate', …}` note, so the value stays valid JSON.
 */
export function contentJson(messages: readonly CapturedMessage[], redact: (text: string) => string): string {
  const kept: string[] = [];
  let size = 2;
  let dropped = 0;
  for (const message of messages) {
    const text = JSON.stringify(message);
    if (dropped > 0 || size + text.length + 1 > CONTENT_LIMITS.totalChars) {
      dropped++;
      continue;
    }
    kept.push(text);
    size += text.length + 1;
  }
  if (dropped > 0) kept.push(JSON.stringify({ role: 'toolgate', parts: [{ type: 'text', content: `${dropped} more messages not captured (size limit)` }] }));
  return redact(`[${kept.join(',')}]`);
}
