import { mapBatch } from '../util/batch.js';
import type { AssistantMessage, ChatChunk, ChunkChoice, FinishReason, ToolCall } from '../api/chat-types.js';
import { customCallInput, customCallName, isCustomCall } from '../api/custom-calls.js';
import { finishReasonFor, isCutOff } from '../toolcalls/normalize-decisions.js';

// One streamed answer on its way through the contract: content (and every other delta field)
// goes on as it comes; tool-call deltas, the finish_reason and the usage chunk are held until
// the answer is complete and judged, so a call reaches the client only once it keeps the
// contract, and a re-ask never has to take back a call the client saw. Chunks without a
// tool-call delta or a finish reason go on as the same objects.

interface HeldCall {
  id: string;
  name: string;
  arguments: string;
  /** Other fields the deltas carried (Gemini's `extra_content` thought signature and the like), latest wins. */
  extra?: Record<string, unknown>;
  /** A custom-tool call: `arguments` holds its input (custom-calls.ts). */
  custom?: boolean;
}

interface HeldChoice {
  calls: HeldCall[];
  finish: FinishReason | null;
  /** The content seen (for the re-ask's copy of the answer). */
  content: string;
}

/** The keys of a tool-call delta the hold assembles itself; any other is carried along. */
const DELTA_KEYS = new Set(['index', 'id', 'type', 'function', 'custom']);

export class StreamHold {
  private readonly choices = new Map<number, HeldChoice>();
  private usageChunk: ChatChunk | undefined;
  private template: ChatChunk | undefined;

  /** What of a batch goes on now: the batch itself when nothing in it is held. */
  pushAll(batch: ChatChunk[]): ChatChunk[] {
    return mapBatch(batch, (chunk) => this.push(chunk));
  }

  /** The chunk to hand on (the same object when nothing in it is held), or undefined when all of it is held. */
  push(chunk: ChatChunk): ChatChunk | undefined {
    this.template ??= chunk;
    if (chunk.choices.length === 0) {
      if (chunk.usage) {
        this.usageChunk = chunk;
        return undefined;
      }
      return chunk;
    }
    let choices: ChunkChoice[] | undefined;
    for (let i = 0; i < chunk.choices.length; i++) {
      const choice = chunk.choices[i];
      const held = this.choiceOf(choice.index);
      if (typeof choice.delta.content === 'string') held.content += choice.delta.content;
      const parts = choice.delta.tool_calls;
      if (parts === undefined && choice.finish_reason === null) {
        choices?.push(choice);
        continue;
      }
      choices ??= chunk.choices.slice(0, i);
      if (choice.finish_reason !== null) held.finish = choice.finish_reason;
      for (const part of parts ?? []) {
        const call = (held.calls[part.index] ??= { id: '', name: '', arguments: '' });
        if (part.id) call.id = part.id;
        if (isCustomCall(part)) {
          call.custom = true;
          call.name += customCallName(part);
          call.arguments += customCallInput(part);
        }
        if (part.function?.name) call.name += part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
        for (const key in part) if (!DELTA_KEYS.has(key) && key !== '__proto__') (call.extra ??= {})[key] = part[key];
      }
      const { tool_calls: _calls, ...delta } = choice.delta;
      // What is left of the delta still goes on (content beside the calls, a role).
      if (Object.keys(delta).length > 0 && !(Object.keys(delta).length === 1 && delta.content === '')) choices.push({ ...choice, delta, finish_reason: null });
    }
    if (choices === undefined) return chunk;
    const usage = chunk.usage;
    if (choices.length === 0 && !usage) return undefined;
    const { usage: _usage, ...rest } = chunk;
    if (usage) this.usageChunk = { ...rest, choices: [] , usage };
    return choices.length === 0 ? undefined : { ...rest, choices };
  }

  /** The answer as the upstream made it, per choice index (calls in order of their index). */
  messages(): Map<number, AssistantMessage> {
    const out = new Map<number, AssistantMessage>();
    for (const [index, held] of this.choices) {
      const calls: ToolCall[] = [];
      for (const call of held.calls) if (call) calls.push(call.custom === true ? customCall(call) : { ...call.extra, id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } });
      out.set(index, { role: 'assistant', content: held.content === '' ? null : held.content, ...(calls.length > 0 ? { tool_calls: calls } : {}) });
    }
    return out;
  }

  /** Some choice was cut off (length, content_filter): its calls are not whole, and not judged as if they were. */
  cutOff(): boolean {
    for (const held of this.choices.values()) if (isCutOff(held.finish)) return true;
    return false;
  }

  /** The usage the upstream reported for this answer, if any. */
  get usage(): ChatChunk['usage'] {
    return this.usageChunk?.usage;
  }

  /**
   * What was held, released: each choice's calls as they were judged (one delta per call, whole),
   * its finish reason (`tool_calls` when it has calls), `warnings` (`toolgate_warnings`) and
   * `repairs` (`toolgate_repairs`) on that last chunk when given, then the usage chunk.
   */
  release(judged: ReadonlyMap<number, AssistantMessage>, warnings?: string, repairs?: string): ChatChunk[] {
    const template = this.template;
    if (!template) return [];
    const { usage: _usage, ...base } = template;
    const out: ChatChunk[] = [];
    for (const [index, held] of this.choices) {
      const calls = judged.get(index)?.tool_calls ?? [];
      calls.forEach((call, position) => {
        if (isCustomCall(call)) {
          out.push({ ...base, choices: [{ index, delta: { tool_calls: [{ ...call, index: position }] }, finish_reason: null }] });
          return;
        }
        const { function: fn, ...fields } = call;
        out.push({ ...base, choices: [{ index, delta: { tool_calls: [{ ...fields, index: position, type: 'function', function: { name: fn.name, arguments: fn.arguments } }] }, finish_reason: null }] });
      });
      // The chat path's decision (a cut-off answer keeps saying so; calls finish with tool_calls); with
      // no call left (none, or all trimmed) a missing or `tool_calls` reason becomes stop.
      const decided = finishReasonFor(held.finish, calls.length > 0);
      const finish: FinishReason = decided === null || (decided === 'tool_calls' && calls.length === 0) ? 'stop' : decided;
      out.push({ ...base, choices: [{ index, delta: {}, finish_reason: finish }], ...(warnings ? { toolgate_warnings: warnings } : {}), ...(repairs ? { toolgate_repairs: repairs } : {}) });
    }
    if (this.usageChunk) out.push(this.usageChunk);
    return out;
  }

  private choiceOf(index: number): HeldChoice {
    let held = this.choices.get(index);
    if (!held) {
      held = { calls: [], finish: null, content: '' };
      this.choices.set(index, held);
    }
    return held;
  }
}

/** A held custom-tool call, whole (custom-calls.ts); the wire type of a call names only functions. */
function customCall(call: HeldCall): ToolCall {
  const whole: Record<string, unknown> = { ...call.extra, id: call.id, type: 'custom', custom: { name: call.name, input: call.arguments } };
  return whole as ToolCall;
}
