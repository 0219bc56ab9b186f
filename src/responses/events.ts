import type { ChatChunk, FinishReason, Usage } from '../api/chat-types.js';
import type { GatewayError } from '../errors.js';
import { newToolCallId } from '../toolcalls/ids.js';
import { customInputOf } from './bridge-tools.js';
import { callItem, finish, messageItem, reasoningItem, reasoningTextOf, statusOf, toResponseUsage, type DeclaredTools } from './from-chat.js';
import { newId } from './ids.js';
import type { Item, ResponseObject, StreamEventBody } from '../api/responses-types.js';

// Responses stream events synthesized from normalized chat chunks, in the order OpenAI sends them:
// response.created, response.in_progress, then per output item `output_item.added`, its content
// part and deltas, their `.done` events and `output_item.done`, and finally response.completed
// (or response.incomplete for a length cut, response.failed after an error). Every event has a
// sequence_number counting from 0. One item is open at a time, as on OpenAI. A call of an emulated
// custom tool (bridge-tools.ts) streams no argument deltas: its input is known once the call's JSON
// arguments are complete, and goes out as one response.custom_tool_call_input.delta + .done.

export interface StreamEvent extends StreamEventBody {
  sequence_number: number;
}

type Open =
  | { kind: 'message' | 'reasoning'; index: number; id: string; text: string }
  | { kind: 'call'; index: number; id: string; callId: string; name: string; args: string };

export class ResponseEventSynthesizer {
  private sequence = 0;
  private readonly output: Item[] = [];
  private open: Open | null = null;
  /** Chat tool-call index → the call it opened (late deltas of a closed call still count). */
  private readonly calls = new Map<number, Extract<Open, { kind: 'call' }>>();
  private finishReason: FinishReason | null = null;
  private usage: Usage | undefined;

  constructor(
    private readonly base: ResponseObject,
    private readonly declared?: DeclaredTools,
  ) {}

  private event(body: StreamEventBody): StreamEvent {
    return { ...body, sequence_number: this.sequence++ };
  }

  /** response.created + response.in_progress. */
  start(): StreamEvent[] {
    const snapshot = { ...this.base, output: [] };
    return [this.event({ type: 'response.created', response: snapshot }), this.event({ type: 'response.in_progress', response: snapshot })];
  }

  feed(chunk: ChatChunk): StreamEvent[] {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0);
    if (!choice) return [];
    const events: StreamEvent[] = [];
    const delta = choice.delta;
    const reasoning = reasoningTextOf(delta);
    if (reasoning !== '') events.push(...this.text('reasoning', reasoning));
    if (typeof delta.content === 'string' && delta.content !== '') events.push(...this.text('message', delta.content));
    for (const part of delta.tool_calls ?? []) {
      let call = this.calls.get(part.index);
      if (!call) {
        events.push(...this.close());
        const name = part.function?.name ?? '';
        call = { kind: 'call', index: this.output.length, id: newId(this.declared?.get(name)?.kind === 'custom' ? 'ctc' : 'fc'), callId: part.id ?? newToolCallId(), name, args: '' };
        this.calls.set(part.index, call);
        this.open = call;
        this.output.push(this.item(call, 'in_progress'));
        events.push(this.event({ type: 'response.output_item.added', output_index: call.index, item: this.item(call, 'in_progress') }));
      }
      const piece = part.function?.arguments;
      if (typeof piece === 'string' && piece !== '') {
        call.args += piece;
        this.output[call.index] = this.item(call, 'completed');
        if (this.open === call && !this.isCustom(call)) events.push(this.event({ type: 'response.function_call_arguments.delta', item_id: call.id, output_index: call.index, delta: piece }));
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** Text into the open message/reasoning item, opening one (and closing anything else) first. */
  private text(kind: 'message' | 'reasoning', piece: string): StreamEvent[] {
    const events: StreamEvent[] = [];
    let open = this.open?.kind === kind ? (this.open as Extract<Open, { kind: 'message' | 'reasoning' }>) : null;
    if (open === null) {
      events.push(...this.close());
      open = { kind, index: this.output.length, id: newId(kind === 'message' ? 'msg' : 'rs'), text: '' };
      this.open = open;
      const empty = this.item(open, 'in_progress');
      this.output.push(empty);
      events.push(this.event({ type: 'response.output_item.added', output_index: open.index, item: { ...empty, content: [] } }));
      events.push(this.event({ type: 'response.content_part.added', item_id: open.id, output_index: open.index, content_index: 0, part: this.part(kind, '') }));
    }
    open.text += piece;
    const type = kind === 'message' ? 'response.output_text.delta' : 'response.reasoning_text.delta';
    events.push(this.event({ type, item_id: open.id, output_index: open.index, content_index: 0, delta: piece, ...(kind === 'message' ? { logprobs: [] } : {}) }));
    return events;
  }

  private part(kind: 'message' | 'reasoning', text: string): Record<string, unknown> {
    return kind === 'message' ? { type: 'output_text', text, annotations: [], logprobs: [] } : { type: 'reasoning_text', text };
  }

  private isCustom(call: Extract<Open, { kind: 'call' }>): boolean {
    return this.declared?.get(call.name)?.kind === 'custom';
  }

  private item(open: Open, status: string): Item {
    if (open.kind === 'call') {
      // An emulated custom call has no input until its arguments are whole.
      const args = this.isCustom(open) && status === 'in_progress' ? JSON.stringify({ input: '' }) : open.args;
      return callItem(open.callId, open.name, args, this.declared, open.id, status);
    }
    return open.kind === 'message' ? messageItem(open.text, open.id, status) : reasoningItem(open.text, open.id, status);
  }

  /** The `.done` events of the open item. */
  private close(status = 'completed'): StreamEvent[] {
    const open = this.open;
    if (!open) return [];
    this.open = null;
    const events: StreamEvent[] = [];
    const item = this.item(open, status);
    this.output[open.index] = item;
    if (open.kind === 'call' && this.isCustom(open)) {
      const input = customInputOf(open.args);
      const base = { item_id: open.id, output_index: open.index };
      if (input !== '') events.push(this.event({ type: 'response.custom_tool_call_input.delta', ...base, delta: input }));
      events.push(this.event({ type: 'response.custom_tool_call_input.done', ...base, input }));
    } else if (open.kind === 'call') {
      events.push(this.event({ type: 'response.function_call_arguments.done', item_id: open.id, output_index: open.index, name: String(item.name), arguments: open.args }));
    } else {
      const base = { item_id: open.id, output_index: open.index, content_index: 0 };
      if (open.kind === 'message') events.push(this.event({ type: 'response.output_text.done', ...base, text: open.text, logprobs: [] }));
      else events.push(this.event({ type: 'response.reasoning_text.done', ...base, text: open.text }));
      events.push(this.event({ type: 'response.content_part.done', ...base, part: this.part(open.kind, open.text) }));
    }
    events.push(this.event({ type: 'response.output_item.done', output_index: open.index, item }));
    return events;
  }

  /** Closes everything; the final response plus its terminal events. */
  end(): { response: ResponseObject; events: StreamEvent[] } {
    const state = statusOf(this.finishReason);
    const events = this.close(state.status === 'completed' || this.open?.kind === 'call' ? 'completed' : 'incomplete');
    const response = finish(this.base, this.output.slice(), state, toResponseUsage(this.usage));
    return { response, events };
  }

  terminal(response: ResponseObject): StreamEvent {
    return this.event({ type: response.status === 'incomplete' ? 'response.incomplete' : 'response.completed', response });
  }

  /** After an error mid-stream: an `error` event, then response.failed with what was produced so far (usage and completed_at null). */
  fail(error: GatewayError): { response: ResponseObject; events: StreamEvent[] } {
    const code = error.status === 429 ? 'rate_limit_exceeded' : 'server_error';
    const response: ResponseObject = { ...this.base, status: 'failed', output: this.output.slice(), error: { code, message: error.message } };
    const events = [
      this.event(errorEvent(error, code)),
      this.event({ type: 'response.failed', response }),
    ];
    return { response, events };
  }
}

/**
 * The stream `error` event: the Open Responses shape (`error: {type, code, message, param}`) and the
 * flat `code`, `message`, `param` OpenAI's SDKs read.
 */
export function errorEvent(error: GatewayError, fallbackCode: string): StreamEventBody {
  const code = error.code ?? fallbackCode;
  return { type: 'error', code, message: error.message, param: error.param, error: { type: error.type, code, message: error.message, param: error.param } };
}
