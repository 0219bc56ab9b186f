import { randomUUID } from 'node:crypto';
import type { ChatChunk, ChatCompletion, ChunkChoice, ToolCallDelta } from '../api/chat-types.js';

// What OpenAI-compatible servers send that is not the OpenAI shape, made spec-shaped once in the
// adapter (the pipeline and the client only see chat completions):
// - `content` as an array of parts: Mistral's reasoning models answer
//   `[{"type":"thinking","thinking":[{"type":"text","text":"…"}]},{"type":"text","text":"…"}]`,
//   in a message and in stream deltas. SDKs read content as a string (an array prints as
//   `[object Object]`), so the text parts become the content string and the thinking goes to
//   `reasoning_content`, where vLLM, SGLang and DeepSeek put reasoning.
// - TGI's `object: "text_completion"` and `id: ""`: the object becomes `chat.completion` /
//   `chat.completion.chunk`, an empty or missing id a generated `chatcmpl-…` one (one per stream);
//   its finish reasons `eos_token` and `stop_sequence` are OpenAI's `stop`. A stream whose later
//   chunks leave the id out keeps its first chunk's id throughout.
// - Call deltas without `index` (Gemini's OpenAI-compatible endpoint): numbered from their ids.
// A changed answer loses its upstream text, so it is serialized afresh (see api/raw-json.ts).

/** The text of a `thinking` part: a string, or a list of text parts. */
function thinkingText(thinking: unknown): string | undefined {
  if (typeof thinking === 'string') return thinking;
  if (!Array.isArray(thinking)) return undefined;
  let text = '';
  for (const part of thinking) {
    if (typeof part === 'string') text += part;
    else if (isRecord(part) && typeof part.text === 'string') text += part.text;
    else return undefined;
  }
  return text;
}

/** Content parts split into answer text and reasoning; undefined when a part is neither (left as sent). */
export function splitContentParts(parts: readonly unknown[]): { text: string | null; reasoning: string } | undefined {
  let text: string | null = null;
  let reasoning = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      text = (text ?? '') + part;
      continue;
    }
    if (!isRecord(part)) return undefined;
    if (part.type === 'text' && typeof part.text === 'string') text = (text ?? '') + part.text;
    else if (part.type === 'thinking') {
      const thought = thinkingText(part.thinking);
      if (thought === undefined) return undefined;
      reasoning += thought;
    } else if (part.type === 'reference') {
      // Mistral's citation markers (reference ids): nothing to show in a string.
    } else {
      return undefined;
    }
  }
  return { text, reasoning };
}

/** The message or delta with array content made a string (and reasoning moved out); the same object when nothing applies. */
function withStringContent<T extends Record<string, unknown>>(holder: T, emptyText: null | undefined): T {
  const content = holder.content;
  if (!Array.isArray(content)) return holder;
  const split = splitContentParts(content);
  if (split === undefined) return holder;
  const out: Record<string, unknown> = { ...holder };
  if (split.text !== null) out.content = split.text;
  else if (emptyText === null) out.content = null;
  else delete out.content;
  if (split.reasoning !== '') {
    const before = typeof holder.reasoning_content === 'string' ? holder.reasoning_content : '';
    out.reasoning_content = before + split.reasoning;
  }
  return out as T;
}

const needsId = (id: unknown): boolean => typeof id !== 'string' || id === '';

/** TGI's finish reasons that OpenAI calls `stop`. */
const STOP_REASONS: ReadonlySet<unknown> = new Set(['eos_token', 'stop_sequence']);

/** A choice with its content made a string and its finish reason OpenAI's; the same object when nothing applies. */
function shapedChoice<C extends { finish_reason: unknown }>(choice: C, key: 'message' | 'delta', emptyText: null | undefined): C {
  const holder = (choice as unknown as Record<string, Record<string, unknown>>)[key];
  const shaped = withStringContent(holder, emptyText);
  const stop = STOP_REASONS.has(choice.finish_reason);
  if (shaped === holder && !stop) return choice;
  return { ...choice, [key]: shaped, ...(stop ? { finish_reason: 'stop' } : {}) };
}

/** A spec-shaped completion: the same object when the upstream's already was. */
export function specShapedCompletion(completion: ChatCompletion): ChatCompletion {
  let out: ChatCompletion | undefined;
  const choices = completion.choices.map((choice) => shapedChoice(choice, 'message', null));
  if (choices.some((choice, i) => choice !== completion.choices[i])) out = { ...completion, choices };
  if (completion.object !== 'chat.completion' || needsId(completion.id)) {
    out = { ...(out ?? completion), object: 'chat.completion', ...(needsId(completion.id) ? { id: newCompletionId() } : {}) };
  }
  return out ?? completion;
}

/** Per stream: makes each chunk spec-shaped; a chunk without an id gets the stream's (the first one sent, else one generated once). */
export class ChunkShaper {
  private id: string | undefined;
  private readonly calls = new Map<number, CallIndexes>();

  /** The chunk itself when it was already spec-shaped. */
  shape(chunk: ChatChunk): ChatChunk {
    // Providers that send the id on the first chunk only: the later ones get that id, not a new one.
    if (this.id === undefined && !needsId(chunk.id)) this.id = chunk.id;
    let out: ChatChunk | undefined;
    for (let i = 0; i < chunk.choices.length; i++) {
      const original = chunk.choices[i];
      let choice = shapedChoice(original, 'delta', undefined);
      choice = this.withCallIndexes(choice);
      if (choice === original) continue;
      out ??= { ...chunk, choices: [...chunk.choices] };
      out.choices[i] = choice;
    }
    if (chunk.object !== 'chat.completion.chunk' || needsId(chunk.id)) {
      const id = needsId(chunk.id) ? (this.id ??= newCompletionId()) : chunk.id;
      out = { ...(out ?? chunk), object: 'chat.completion.chunk', id };
    }
    return out ?? chunk;
  }

  /** The choice with every call delta's `index` (see CallIndexes); the same object when all had one. */
  private withCallIndexes(choice: ChunkChoice): ChunkChoice {
    const deltas = choice.delta.tool_calls;
    if (!Array.isArray(deltas) || deltas.length === 0) return choice;
    let indexes = this.calls.get(choice.index);
    if (indexes === undefined) this.calls.set(choice.index, (indexes = new CallIndexes()));
    let out: ToolCallDelta[] | undefined;
    for (let j = 0; j < deltas.length; j++) {
      const delta = deltas[j];
      const index = indexes.of(delta);
      if (index === delta.index) continue;
      out ??= [...deltas];
      out[j] = { ...delta, index };
    }
    return out === undefined ? choice : { ...choice, delta: { ...choice.delta, tool_calls: out } };
  }
}

/**
 * A call delta's position among a choice's calls. Some servers leave `index` out (Gemini's
 * OpenAI-compatible endpoint, several proxies): a delta with an id not seen before opens the next
 * call, one with a seen id continues that call, one without either continues the last call.
 * Deltas that carry an index keep it (and teach their id's position).
 */
class CallIndexes {
  private readonly byId = new Map<string, number>();
  private last = -1;

  of(delta: ToolCallDelta): number {
    const given: unknown = delta.index;
    const id = typeof delta.id === 'string' && delta.id !== '' ? delta.id : undefined;
    let index: number;
    if (typeof given === 'number' && Number.isInteger(given) && given >= 0) index = given;
    else if (id !== undefined) index = this.byId.get(id) ?? this.last + 1;
    else index = Math.max(this.last, 0);
    // Bounded by the calls of one answer: an id is remembered only when it opens a call.
    if (id !== undefined && !this.byId.has(id) && this.byId.size < MAX_REMEMBERED_CALLS) this.byId.set(id, index);
    this.last = Math.max(this.last, index);
    return index;
  }
}

/** Calls per choice whose ids a stream remembers (more than any answer declares). */
const MAX_REMEMBERED_CALLS = 4096;

function newCompletionId(): string {
  return `chatcmpl-${randomUUID().replaceAll('-', '')}`;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
