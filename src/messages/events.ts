import type { ChatChunk, FinishReason, Usage } from '../api/chat-types.js';
import type { EventSynthesizer } from '../edge/types.js';
import type { GatewayError } from '../errors.js';
import { newToolCallId } from '../toolcalls/ids.js';
import { reasoningTextOf } from '../responses/from-chat.js';
import { anthropicErrorBody } from './errors.js';
import { inputOf, stopOf, toMessageUsage, type AnswerOptions } from './from-chat.js';
import type { MessageObject, MessagesRequest } from './types.js';

// Messages stream events synthesized from normalized chat chunks, in the order Anthropic sends
// them: message_start, ping, then per content block content_block_start, its deltas
// (thinking_delta, text_delta, input_json_delta) and content_block_stop, then message_delta (stop
// reason, usage) and message_stop. One block is open at a time, as on Anthropic; input and output
// token counts arrive with message_delta (chat upstreams report usage at the end). A tool_use
// block's input goes out in one input_json_delta when the block closes: the same object the JSON
// answer has (from-chat.ts inputOf), never a fragment that parses to something else.

export type MessageEvent = { type: string; [key: string]: unknown };

/** An open tool_use block keeps its call's argument text: the input goes out whole when it closes. */
type Open = { kind: 'thinking' | 'text'; index: number } | { kind: 'tool_use'; index: number; call: number; args: string };

export class MessageEventSynthesizer implements EventSynthesizer<MessageEvent> {
  private blocks = 0;
  private open: Open | null = null;
  /** Chat tool-call indexes already given a block (a later delta of a closed call cannot reopen it). */
  private readonly calls = new Set<number>();
  private finishReason: FinishReason | null = null;
  private matched: unknown;
  private usage: Usage | undefined;
  private anyCall = false;

  constructor(
    private readonly request: MessagesRequest,
    private readonly id: string,
    private readonly options: AnswerOptions = {},
  ) {}

  start(): MessageEvent[] {
    const message: MessageObject = { id: this.id, type: 'message', role: 'assistant', model: this.request.model, content: [], stop_reason: null, stop_sequence: null, usage: toMessageUsage(undefined) };
    return [{ type: 'message_start', message }, { type: 'ping' }];
  }

  feed(chunk: ChatChunk): MessageEvent[] {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return [];
    const events: MessageEvent[] = [];
    const delta = choice.delta ?? {};
    const reasoning = reasoningTextOf(delta);
    if (reasoning !== '') this.text('thinking', reasoning, events);
    if (typeof delta.content === 'string' && delta.content !== '') this.text('text', delta.content, events);
    for (const part of delta.tool_calls ?? []) {
      if (!this.calls.has(part.index)) {
        this.close(events);
        this.calls.add(part.index);
        this.anyCall = true;
        const index = this.blocks++;
        this.open = { kind: 'tool_use', index, call: part.index, args: '' };
        events.push({ type: 'content_block_start', index, content_block: { type: 'tool_use', id: part.id ?? newToolCallId(), name: part.function?.name ?? '', input: {} } });
      }
      const piece = part.function?.arguments;
      const open = this.open;
      if (typeof piece === 'string' && open?.kind === 'tool_use' && open.call === part.index) open.args += piece;
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    if (choice.stop_reason !== undefined && choice.stop_reason !== null) this.matched = choice.stop_reason;
    return events;
  }

  /** Text into the open thinking/text block, opening one (and closing anything else) first. */
  private text(kind: 'thinking' | 'text', piece: string, events: MessageEvent[]): void {
    if (this.open?.kind !== kind) {
      this.close(events);
      const index = this.blocks++;
      this.open = { kind, index };
      events.push({ type: 'content_block_start', index, content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' } });
    }
    const delta = kind === 'text' ? { type: 'text_delta', text: piece } : { type: 'thinking_delta', thinking: piece };
    events.push({ type: 'content_block_delta', index: this.open.index, delta });
  }

  private close(events: MessageEvent[]): void {
    if (!this.open) return;
    if (this.open.kind === 'tool_use') {
      // The input as the JSON answer has it (an object, always): one delta, the whole object.
      const json = JSON.stringify(inputOf(this.open.args, this.options));
      if (json !== '{}') events.push({ type: 'content_block_delta', index: this.open.index, delta: { type: 'input_json_delta', partial_json: json } });
    }
    events.push({ type: 'content_block_stop', index: this.open.index });
    this.open = null;
  }

  /** Closes the open block; message_delta and message_stop. */
  end(): MessageEvent[] {
    const events: MessageEvent[] = [];
    this.close(events);
    const stop = stopOf(this.finishReason, this.matched, this.request, this.anyCall);
    events.push({ type: 'message_delta', delta: stop, usage: toMessageUsage(this.usage) });
    events.push({ type: 'message_stop' });
    return events;
  }

  /** An `error` event; Anthropic ends the stream there (no message_stop). */
  fail(error: GatewayError, message: string): MessageEvent[] {
    return [anthropicErrorBody({ error: { ...error.toBody().error, message } }, error.status)];
  }
}
