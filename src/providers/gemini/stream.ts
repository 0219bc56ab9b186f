import type { AssistantMessage, ChatChunk, ChunkDelta, FinishReason, ToolCall, ToolCallDelta, Usage } from '../../api/chat-types.js';
import { errors } from '../../errors.js';
import {
  isToolFailure, mapFinishReason, noteCallMeta, noteUnexpectedCalls, promptBlockedError, randomId, toToolCall, toolFailureError, toUsage,
  type AnswerContext, type CallMetaMap,
} from './response.js';
import type { GenerateContentResponse } from './wire-types.js';

// Gemini SSE → OpenAI chunks. Every Gemini event is a whole GenerateContentResponse holding only
// the new parts: text arrives in pieces, function calls arrive whole (one tool_calls delta each,
// with an index that keeps counting across events), the last event carries finishReason and usage.

interface ChoiceState {
  text: string;
  /** Thought summaries so far (reasoning_content). */
  reasoning: string;
  toolCalls: ToolCall[];
  finish: FinishReason | null;
}

export class StreamTranslator {
  readonly callMeta: CallMetaMap = {};
  private readonly choices = new Map<number, ChoiceState>();
  private id: string | null = null;
  private readonly created = Math.floor(Date.now() / 1000);
  private usage: Usage | undefined;
  private events = 0;

  constructor(
    private readonly context: AnswerContext,
    private readonly includeUsage: boolean,
  ) {}

  /** Translates one upstream event; throws the catalogue's error for a blocked prompt or a failed call. */
  push(event: GenerateContentResponse): ChatChunk[] {
    this.events++;
    const blocked = promptBlockedError(event);
    if (blocked) throw blocked;
    this.id ??= `chatcmpl-${event.responseId ?? randomId(24)}`;
    this.usage = toUsage(event.usageMetadata) ?? this.usage;
    const out: ChatChunk[] = [];
    (event.candidates ?? []).forEach((candidate, position) => {
      const index = candidate.index ?? position;
      let state = this.choices.get(index);
      if (!state) {
        state = { text: '', reasoning: '', toolCalls: [], finish: null };
        this.choices.set(index, state);
        out.push(this.chunk(index, { role: 'assistant', content: '' }, null));
      }
      const delta: ChunkDelta = {};
      const calls: ToolCallDelta[] = [];
      for (const part of candidate.content?.parts ?? []) {
        if (part.thought === true) {
          // Thought summaries stream as reasoning_content, where OpenAI-compatible servers put reasoning.
          if (typeof part.text === 'string' && part.text) {
            delta.reasoning_content = `${typeof delta.reasoning_content === 'string' ? delta.reasoning_content : ''}${part.text}`;
            state.reasoning += part.text;
          }
          continue;
        }
        if (typeof part.text === 'string' && part.text) {
          delta.content = (delta.content ?? '') + part.text;
          state.text += part.text;
        }
        if (part.functionCall) {
          const toolCall = toToolCall(part.functionCall, this.context);
          noteCallMeta(this.callMeta, toolCall, part.functionCall, part.thoughtSignature);
          calls.push({ index: state.toolCalls.length, id: toolCall.id, type: 'function', function: { ...toolCall.function } });
          state.toolCalls.push(toolCall);
        }
      }
      if (calls.length > 0) delta.tool_calls = calls;
      if (delta.content !== undefined || delta.reasoning_content !== undefined || calls.length > 0) out.push(this.chunk(index, delta, null));
      if (candidate.finishReason && state.finish === null) {
        if (isToolFailure(candidate.finishReason)) {
          this.context.warn('gemini candidate ended without a usable tool call', { finishReason: candidate.finishReason, finishMessage: candidate.finishMessage });
          if (!state.text && state.toolCalls.length === 0) throw toolFailureError(this.context.provider, candidate);
        }
        state.finish = mapFinishReason(candidate.finishReason, state.toolCalls.length > 0);
        const finish = this.chunk(index, {}, state.finish);
        noteUnexpectedCalls(finish, candidate.finishReason, state.toolCalls.length);
        out.push(finish);
      }
    });
    return out;
  }

  /** Closes choices the upstream left open and adds the usage chunk when the client asked for it. */
  end(): ChatChunk[] {
    if (this.events === 0) throw errors.upstreamBadResponse(this.context.provider, 'the stream ended before any event');
    const out: ChatChunk[] = [];
    for (const [index, state] of this.choices) {
      if (state.finish !== null) continue;
      state.finish = mapFinishReason(undefined, state.toolCalls.length > 0);
      out.push(this.chunk(index, {}, state.finish));
    }
    if (this.includeUsage) {
      const usage = this.usage ?? { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
      out.push({ ...this.base(), choices: [], usage });
    }
    return out;
  }

  /** The assistant messages as the client will have assembled them (for the ledger). */
  messages(): AssistantMessage[] {
    return [...this.choices.values()].map((s) => ({
      role: 'assistant',
      content: s.text || null,
      ...(s.reasoning ? { reasoning_content: s.reasoning } : {}),
      ...(s.toolCalls.length > 0 ? { tool_calls: s.toolCalls } : {}),
    }));
  }

  private base(): Pick<ChatChunk, 'id' | 'object' | 'created' | 'model'> {
    return { id: this.id ?? `chatcmpl-${randomId(24)}`, object: 'chat.completion.chunk', created: this.created, model: this.context.model };
  }

  private chunk(index: number, delta: ChunkDelta, finish: FinishReason | null): ChatChunk {
    return { ...this.base(), ...(this.includeUsage ? { usage: null } : {}), choices: [{ index, delta, finish_reason: finish, logprobs: null }] };
  }
}
