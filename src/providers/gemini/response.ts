import { randomBytes } from 'node:crypto';
import type { AssistantMessage, ChatChoice, ChatCompletion, FinishReason, ToolCall, Usage } from '../../api/chat-types.js';
import { errors, type GatewayError } from '../../errors.js';
import { noteAnswerWarning } from '../answer-warnings.js';
import { restoreArgs, type ArgFix } from './schema.js';
import type { GeminiCandidate, GeminiFunctionCall, GeminiUsageMetadata, GenerateContentResponse } from './wire-types.js';

// GenerateContentResponse → OpenAI chat completion. The helpers here (finish reasons, usage,
// tool call ids and arguments) are shared with the stream translation.

export interface AnswerContext {
  provider: string;
  /** The model name put on completions and chunks. */
  model: string;
  fixes: Map<string, ArgFix>;
  warn: (message: string, detail: Record<string, unknown>) => void;
}

/** Per issued tool call id: what must travel with it back to Gemini (signature, Gemini's own id). */
export type CallMetaMap = Record<string, Record<string, string>>;

const FILTERED = new Set([
  'SAFETY', 'RECITATION', 'PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'LANGUAGE',
  'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION',
]);
/** The model tried to call a tool and failed: nothing usable came out. */
const TOOL_FAILURES = new Set(['MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS']);

export function isToolFailure(reason: string | undefined): boolean {
  return reason !== undefined && TOOL_FAILURES.has(reason);
}

/**
 * A candidate that ended with UNEXPECTED_TOOL_CALL (a call to a tool the request did not declare)
 * but still holds calls: they are relayed, and the answer object carries a warning for the client.
 */
export function noteUnexpectedCalls(answer: object, finishReason: string | undefined, calls: number): void {
  if (finishReason === 'UNEXPECTED_TOOL_CALL' && calls > 0) noteAnswerWarning(answer, 'unexpected_tool_call', calls);
}

/** Gemini says STOP even when it called tools; OpenAI clients loop on `tool_calls`. */
export function mapFinishReason(reason: string | undefined, hasCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (reason && FILTERED.has(reason)) return 'content_filter';
  return hasCalls ? 'tool_calls' : 'stop';
}

export function toolFailureError(provider: string, candidate: GeminiCandidate): GatewayError {
  const detail = candidate.finishMessage ? `: ${candidate.finishMessage}` : '';
  return errors.upstreamBadResponse(provider, `the model produced no usable output (finishReason ${candidate.finishReason}${detail})`);
}

export function toUsage(meta: GeminiUsageMetadata | undefined): Usage | undefined {
  if (!meta) return undefined;
  const prompt = (meta.promptTokenCount ?? 0) + (meta.toolUsePromptTokenCount ?? 0);
  const thoughts = meta.thoughtsTokenCount ?? 0;
  const completion = (meta.candidatesTokenCount ?? 0) + thoughts;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: meta.totalTokenCount ?? prompt + completion,
    prompt_tokens_details: { cached_tokens: meta.cachedContentTokenCount ?? 0 },
    completion_tokens_details: { reasoning_tokens: thoughts },
  };
}

/** Blocked prompts come back as HTTP 200 with no candidates: make them a clear 400. */
export function promptBlockedError(response: GenerateContentResponse): GatewayError | null {
  const reason = response.promptFeedback?.blockReason;
  if (!reason || (response.candidates && response.candidates.length > 0)) return null;
  const detail = response.promptFeedback?.blockReasonMessage ? `: ${response.promptFeedback.blockReasonMessage}` : '';
  return errors.upstreamStatus(400, `Gemini blocked the prompt (blockReason ${reason})${detail}.`, 'invalid_request_error', 'content_filter', 'messages');
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
export function randomId(length: number): string {
  let out = '';
  for (const byte of randomBytes(length)) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

/** One Gemini functionCall as an OpenAI tool call; Gemini's own id is kept when it sends one. */
export function toToolCall(call: GeminiFunctionCall, context: AnswerContext): ToolCall {
  const args = restoreArgs(call.args ?? {}, context.fixes.get(call.name));
  return { id: call.id || `call_${randomId(24)}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(args) } };
}

/** Remembers what a call needs when it comes back in history. */
export function noteCallMeta(meta: CallMetaMap, toolCall: ToolCall, call: GeminiFunctionCall, signature: string | undefined): void {
  const entry: Record<string, string> = {};
  if (signature) entry.thoughtSignature = signature;
  if (call.id) entry.upstreamId = call.id;
  if (Object.keys(entry).length > 0) meta[toolCall.id] = entry;
}

export interface Translated {
  completion: ChatCompletion;
  callMeta: CallMetaMap;
}

export function toCompletion(response: GenerateContentResponse, context: AnswerContext): Translated {
  const blocked = promptBlockedError(response);
  if (blocked) throw blocked;
  const callMeta: CallMetaMap = {};
  const candidates = response.candidates ?? [];
  if (candidates.length === 0) throw errors.upstreamBadResponse(context.provider, 'the response has no candidates');

  const failures: GeminiCandidate[] = [];
  let unexpectedCalls = 0;
  const choices = candidates.map((candidate, position): ChatChoice => {
    let text = '';
    let reasoning = '';
    const toolCalls: ToolCall[] = [];
    for (const part of candidate.content?.parts ?? []) {
      // Thought summaries are reasoning, never answer content: chat's reasoning_content.
      if (part.thought === true) {
        if (typeof part.text === 'string') reasoning += part.text;
        continue;
      }
      if (typeof part.text === 'string') text += part.text;
      if (part.functionCall) {
        const toolCall = toToolCall(part.functionCall, context);
        noteCallMeta(callMeta, toolCall, part.functionCall, part.thoughtSignature);
        toolCalls.push(toolCall);
      }
    }
    if (isToolFailure(candidate.finishReason)) {
      context.warn('gemini candidate ended without a usable tool call', { finishReason: candidate.finishReason, finishMessage: candidate.finishMessage });
      if (!text && toolCalls.length === 0) failures.push(candidate);
      if (candidate.finishReason === 'UNEXPECTED_TOOL_CALL') unexpectedCalls += toolCalls.length;
    }
    const message: AssistantMessage = { role: 'assistant', content: text || null, ...(reasoning ? { reasoning_content: reasoning } : {}), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) };
    return { index: candidate.index ?? position, message, finish_reason: mapFinishReason(candidate.finishReason, toolCalls.length > 0), logprobs: null };
  });
  if (failures.length === candidates.length) throw toolFailureError(context.provider, failures[0]);

  const usage = toUsage(response.usageMetadata);
  const completion: ChatCompletion = {
    id: `chatcmpl-${response.responseId ?? randomId(24)}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: context.model,
    choices,
    ...(usage ? { usage } : {}),
  };
  noteUnexpectedCalls(completion, 'UNEXPECTED_TOOL_CALL', unexpectedCalls);
  return { completion, callMeta };
}
