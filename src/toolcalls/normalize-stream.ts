import type { ChatChunk, ChunkChoice, ChunkDelta, ToolCallDelta } from '../api/chat-types.js';
import { fixArguments } from './arguments.js';
import { ToolCallIdFixer, newToolCallId } from './ids.js';
import {
  type NormalizeContext,
  type NormalizeReport,
  type StreamNormalizer,
  createReport,
  fixCallArguments,
  noteTextCallName,
  noteUnchecked,
  parseContextOf,
  resolveCallName,
} from './normalize-shared.js';
import { type ExtractorEvent, ToolCallStreamExtractor } from './stream-extractor.js';
import { CountingNormalizer } from './normalize-stream-counting.js';
import { TextBuilder } from './text-builder.js';

// The streaming twin of normalizeCompletion. Prose goes out as it arrives (the text extractor
// holds back only what could start a call); native tool_call deltas pass through with names
// decoded/aliased (a call's deltas wait until its name is complete) and ids made usable; calls
// written in text go out as OpenAI tool_call deltas (a header delta with id, type, full name and
// arguments "", then the arguments); the choice's last chunk says finish_reason "tool_calls".
// Usage-only chunks and chunks needing no change pass through as the same objects.

export interface NormalizedStream {
  chunks: AsyncIterable<ChatChunk>;
  /** Filled in as the stream is read; complete once it ends. */
  report: NormalizeReport;
}

export type { StreamNormalizer } from './normalize-shared.js';

export function createStreamNormalizer(ctx: NormalizeContext): StreamNormalizer {
  const passThrough = ctx.tools.size === 0 && (ctx.reasoning ?? 'content') === 'content';
  return passThrough ? new CountingNormalizer() : new ChunkNormalizer(ctx);
}

export function normalizeStream(chunks: AsyncIterable<ChatChunk>, ctx: NormalizeContext): NormalizedStream {
  const normalizer = createStreamNormalizer(ctx);
  return { chunks: normalized(chunks, normalizer), report: normalizer.report };
}

async function* normalized(chunks: AsyncIterable<ChatChunk>, normalizer: StreamNormalizer): AsyncGenerator<ChatChunk> {
  const out: ChatChunk[] = [];
  for await (const chunk of chunks) {
    normalizer.push(chunk, out);
    yield* out.splice(0);
  }
  normalizer.end(out);
  yield* out;
}

interface NativeCall {
  outIndex: number;
  upstreamId?: string;
  name: string;
  /** Arguments seen so far (validated at the end for the report). */
  args: TextBuilder;
  released: boolean;
  clientName: string;
  clientId: string;
}

class ChoiceState {
  extractor: ToolCallStreamExtractor | undefined;
  readonly native = new Map<number, NativeCall>();
  /** Every native call, also those a later call on the same upstream index replaced in `native` (the report checks them all). */
  readonly nativeCalls: NativeCall[] = [];
  readonly ids = new ToolCallIdFixer();
  private readonly usedIndices = new Set<number>();
  calls = 0;
  finished = false;

  constructor(ctx: NormalizeContext) {
    const reasoning = ctx.reasoning ?? 'content';
    const calls = ctx.textParsing && ctx.tools.size > 0;
    if (calls || reasoning !== 'content') {
      this.extractor = new ToolCallStreamExtractor(parseContextOf(ctx), { reasoning, ...(calls ? {} : { formats: [] }) });
    }
  }

  /** Native calls keep their index unless it is taken; text calls take the next free one. */
  allocateIndex(wanted?: number): number {
    let index = wanted !== undefined && !this.usedIndices.has(wanted) ? wanted : 0;
    while (this.usedIndices.has(index)) index++;
    this.usedIndices.add(index);
    return index;
  }
}

class ChunkNormalizer implements StreamNormalizer {
  readonly report = createReport();
  private readonly states = new Map<number, ChoiceState>();
  /**
   * What end() copies from the last chunk, not the chunk: that would keep its choices and the
   * upstream text it remembers (a slice of the read it came in) until the stream ends.
   */
  private last: ChunkHeader | undefined;

  constructor(private readonly ctx: NormalizeContext) {}

  private stateOf(index: number): ChoiceState {
    let state = this.states.get(index);
    if (!state) {
      state = new ChoiceState(this.ctx);
      this.states.set(index, state);
    }
    return state;
  }

  pushAll(batch: ChatChunk[]): ChatChunk[] {
    let out: ChatChunk[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      const chunk = batch[i];
      if (this.passes(chunk)) {
        out?.push(chunk);
        continue;
      }
      out ??= batch.slice(0, i);
      this.changed(chunk, out);
    }
    return out ?? batch;
  }

  push(chunk: ChatChunk, out: ChatChunk[]): void {
    if (this.passes(chunk)) out.push(chunk);
    else this.changed(chunk, out);
  }

  /** The usual chunk, decided without building pieces: true when it goes out as it is (its state updated); false changes nothing. */
  private passes(chunk: ChatChunk): boolean {
    if (chunk.choices.length === 0) return true; // usage-only
    if (chunk.choices.length !== 1) return false;
    // The usual case, without the bookkeeping for several choices.
    const choice = chunk.choices[0];
    const state = this.stateOf(choice.index);
    if (!passesUnchanged(choice, state) && !passesAsFragment(choice, state)) return false;
    this.noteLast(chunk);
    return true;
  }

  /** A new header only when the chunk's differs from the last one's (the usual stream: once). */
  private noteLast(chunk: ChatChunk): void {
    const last = this.last;
    if (last !== undefined && last.id === chunk.id && last.created === chunk.created && last.model === chunk.model && last.system_fingerprint === chunk.system_fingerprint) return;
    this.last = { id: chunk.id, created: chunk.created, model: chunk.model, system_fingerprint: chunk.system_fingerprint };
  }

  /** What push appends for a chunk passes() did not let through. */
  private changed(chunk: ChatChunk, out: ChatChunk[]): void {
    this.noteLast(chunk);
    if (chunk.choices.length === 1) {
      const choice = chunk.choices[0];
      const state = this.stateOf(choice.index);
      const pieces = normalizeChoice(choice, state, this.ctx, this.report);
      if (pieces.length === 1 && pieces[0] === choice) out.push(chunk);
      else if (pieces.length > 0) {
        out.push({ ...chunk, choices: [pieces[0]] });
        for (let i = 1; i < pieces.length; i++) out.push(chunkLike(chunk, pieces[i]));
      }
      return;
    }
    const main: ChunkChoice[] = [];
    const extra: ChunkChoice[] = [];
    let changed = false;
    for (const choice of chunk.choices) {
      const pieces = normalizeChoice(choice, this.stateOf(choice.index), this.ctx, this.report);
      if (pieces.length !== 1 || pieces[0] !== choice) changed = true;
      if (pieces.length > 0) main.push(pieces[0]);
      extra.push(...pieces.slice(1));
    }
    if (!changed) {
      out.push(chunk);
      return;
    }
    if (main.length > 0) out.push({ ...chunk, choices: main });
    for (const piece of extra) out.push(chunkLike(chunk, piece));
  }

  end(out: ChatChunk[]): void {
    const { states, last, ctx, report } = this;
    // Upstream ended without a finish_reason for some choice: flush what was held back.
    for (const [index, state] of states) {
      if (state.finished || !last) continue;
      const pieces = [...flushChoice(index, state, ctx, report)];
      if (state.calls > 0) pieces.push({ index, delta: {}, finish_reason: 'tool_calls' });
      for (const piece of pieces) out.push(chunkLike(last, piece));
    }
    for (const state of states.values()) finishReport(state, ctx, report);
  }
}

/** The usual prose token, decided without building pieces: what normalizeChoice would return as `[choice]`. False changes no state. */
function passesUnchanged(choice: ChunkChoice, state: ChoiceState): boolean {
  if (state.finished) return true;
  const delta = choice.delta;
  if (choice.finish_reason !== null || (delta.tool_calls && delta.tool_calls.length > 0)) return false;
  const content = delta.content;
  return !state.extractor || typeof content !== 'string' || content === '' || state.extractor.passes(content);
}

/**
 * The usual native-call event, the next fragment of a released call's arguments (its own index,
 * no id, no name, no text, nothing to finish): what normalizeChoice would return as `[choice]`,
 * decided without building pieces. True also keeps the fragment (as nativeDelta would); false
 * changes no state.
 */
function passesAsFragment(choice: ChunkChoice, state: ChoiceState): boolean {
  const delta = choice.delta;
  const calls = delta.tool_calls;
  if (choice.finish_reason !== null || state.extractor || !calls || calls.length !== 1) return false;
  if (delta.content !== undefined && delta.content !== null && delta.content !== '') return false;
  const fragment = calls[0];
  if (fragment.id !== undefined || typeof fragment.index !== 'number' || fragment.function?.name !== undefined) return false;
  const call = state.native.get(fragment.index);
  if (!call || !call.released || call.outIndex !== fragment.index) return false;
  call.args.append(fragment.function?.arguments ?? '');
  return true;
}

/** The pieces one upstream choice becomes, in order; `[choice]` itself when nothing changes. */
function normalizeChoice(choice: ChunkChoice, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ChunkChoice[] {
  if (state.finished) return [choice];
  const delta = choice.delta;
  // The usual event, a prose token and nothing to finish: when the extractor releases it as it is,
  // the choice goes on unchanged without the bookkeeping below.
  if (choice.finish_reason === null && !(delta.tool_calls && delta.tool_calls.length > 0)) {
    const content = delta.content;
    if (!state.extractor || typeof content !== 'string' || content === '') return [choice];
    const events = state.extractor.feed(content);
    if (events.length === 1 && events[0].type === 'text' && events[0].text === content) return [choice];
    return normalizeChoiceFully(choice, state, ctx, report, events);
  }
  return normalizeChoiceFully(choice, state, ctx, report);
}

/** normalizeChoice's general case; `fed`: what the extractor already made of the delta's content. */
function normalizeChoiceFully(choice: ChunkChoice, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport, fed?: ExtractorEvent[]): ChunkChoice[] {
  const index = choice.index;
  const delta = choice.delta;
  const before: ChunkChoice[] = [];
  const after: ChunkChoice[] = [];
  let mainDelta: ChunkDelta = delta;

  if (delta.tool_calls && delta.tool_calls.length > 0) {
    // Structured calls: text parsing stops; whatever text it held back is prose after all.
    if (state.extractor) {
      before.push(...eventsToPieces(index, state.extractor.end(), state, ctx, report));
      report.unknownNames += state.extractor.rejectedNames;
      report.malformedCalls += state.extractor.malformedCalls;
      state.extractor = undefined;
    }
    const toolCalls = delta.tool_calls.flatMap((call) => nativeDelta(call, state, ctx, report));
    const same = toolCalls.length === delta.tool_calls.length && toolCalls.every((call, i) => call === delta.tool_calls?.[i]);
    if (!same) mainDelta = withToolCalls(delta, toolCalls);
  }

  if (state.extractor && typeof delta.content === 'string' && delta.content !== '') {
    const events = fed ?? state.extractor.feed(delta.content);
    const leadText = events[0]?.type === 'text' ? events[0].text : '';
    if (leadText !== delta.content || events.length > 1) {
      mainDelta = { ...mainDelta, content: leadText };
      after.push(...eventsToPieces(index, leadText === '' ? events : events.slice(1), state, ctx, report));
    }
  }

  let finish = choice.finish_reason;
  if (finish !== null) {
    state.finished = true;
    after.push(...flushChoice(index, state, ctx, report));
    if (state.calls > 0) finish = 'tool_calls';
  }

  const pieces: ChunkChoice[] = [...before];
  const mainChanged = mainDelta !== delta || finish !== choice.finish_reason || after.length > 0;
  if (!mainChanged) pieces.push(choice);
  else if (after.length === 0) pieces.push({ ...choice, delta: mainDelta, finish_reason: finish });
  else {
    // The finish_reason moves to a closing piece after the calls.
    pieces.push({ ...choice, delta: mainDelta, finish_reason: null }, ...after);
    if (finish !== null) pieces.push({ index, delta: {}, finish_reason: finish });
  }
  return pieces.filter((piece) => piece === choice || !isBlank(piece));
}

/** Releases held text, text calls and native calls whose names were still arriving. */
function flushChoice(index: number, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ChunkChoice[] {
  const pieces: ChunkChoice[] = [];
  if (state.extractor) {
    pieces.push(...eventsToPieces(index, state.extractor.end(), state, ctx, report));
    report.unknownNames += state.extractor.rejectedNames;
      report.malformedCalls += state.extractor.malformedCalls;
    state.extractor = undefined;
  }
  for (const call of state.native.values()) {
    if (!call.released) pieces.push({ index, delta: { tool_calls: [releaseNative(call, state, ctx, report)] }, finish_reason: null });
  }
  return pieces;
}

function eventsToPieces(index: number, events: ExtractorEvent[], state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ChunkChoice[] {
  const pieces: ChunkChoice[] = [];
  for (const event of events) {
    if (event.type === 'text') {
      pieces.push({ index, delta: { content: event.text }, finish_reason: null });
      continue;
    }
    if (event.type === 'reasoning') {
      // Where OpenAI-compatible servers (vLLM, SGLang) stream reasoning.
      pieces.push({ index, delta: { reasoning_content: event.text }, finish_reason: null });
      continue;
    }
    const { call, format } = event;
    if (report.mode === 'none') report.mode = 'text';
    report.format ??= format;
    report.toolCalls++;
    state.calls++;
    noteTextCallName(call.calledName, call.name, ctx, report);
    const outIndex = state.allocateIndex();
    const args = fixCallArguments(call.arguments, call.name, ctx, report);
    pieces.push(
      { index, delta: { tool_calls: [{ index: outIndex, id: newToolCallId(), type: 'function', function: { name: call.name, arguments: '' } }] }, finish_reason: null },
      { index, delta: { tool_calls: [{ index: outIndex, function: { arguments: args } }] }, finish_reason: null },
    );
  }
  return pieces;
}

/** One upstream tool_call delta → what the client gets (nothing while the call's name is incomplete). */
function nativeDelta(delta: ToolCallDelta, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ToolCallDelta[] {
  const upstreamIndex = typeof delta.index === 'number' ? delta.index : 0;
  let call = state.native.get(upstreamIndex);
  // Some upstreams number parallel calls all 0: a new id on a used index is a new call.
  if (!call || (delta.id !== undefined && call.upstreamId !== undefined && delta.id !== call.upstreamId)) {
    call = { outIndex: state.allocateIndex(upstreamIndex), upstreamId: delta.id, name: '', args: new TextBuilder(), released: false, clientName: '', clientId: '' };
    state.native.set(upstreamIndex, call);
    state.nativeCalls.push(call);
    state.calls++;
    report.toolCalls++;
    report.mode = 'native';
  }
  call.upstreamId ??= delta.id;
  const fragment = delta.function?.arguments ?? '';
  call.args.append(fragment);
  if (!call.released) {
    call.name += delta.function?.name ?? '';
    // The name is complete once it is a declared tool or the arguments begin.
    const decoded = ctx.codec ? ctx.codec.decode(call.name) : call.name;
    if (!ctx.tools.has(decoded) && fragment === '') return [];
    return [releaseNative(call, state, ctx, report, delta)];
  }
  if (delta.index === call.outIndex && delta.id === undefined && delta.function?.name === undefined) return [delta];
  // Repeated ids and names are dropped or mapped: clients concatenate what they get.
  return [{ index: call.outIndex, ...(delta.id !== undefined ? { id: call.clientId } : {}), function: { arguments: fragment } }];
}

function releaseNative(call: NativeCall, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport, delta?: ToolCallDelta): ToolCallDelta {
  call.released = true;
  call.clientName = resolveCallName(call.name, ctx, report);
  call.clientId = state.ids.fix(call.upstreamId);
  const unchanged =
    delta !== undefined &&
    delta.index === call.outIndex &&
    delta.id === call.clientId &&
    delta.type === 'function' &&
    delta.function?.name === call.clientName;
  if (unchanged) return delta;
  // Everything before this delta carried no arguments, so this delta's fragment is all there is so far.
  return { ...delta, index: call.outIndex, id: call.clientId, type: 'function', function: { ...delta?.function, name: call.clientName, arguments: delta?.function?.arguments ?? '' } };
}

function finishReport(state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): void {
  for (const call of state.nativeCalls) {
    const checked = fixArguments(call.args.text, ctx.tools.get(call.clientName)?.function.parameters, ctx.repairBudget);
    if (checked.errors.length > 0) report.invalidArguments++;
    if (checked.unchecked.length > 0) noteUnchecked(report, checked.unchecked);
  }
}

function withToolCalls(delta: ChunkDelta, toolCalls: ToolCallDelta[]): ChunkDelta {
  if (toolCalls.length > 0) return { ...delta, tool_calls: toolCalls };
  const { tool_calls: _dropped, ...rest } = delta;
  return rest;
}

/** A piece that says nothing (held-back text left an empty delta): not worth a chunk. */
function isBlank(piece: ChunkChoice): boolean {
  if (piece.finish_reason !== null || (piece.logprobs !== undefined && piece.logprobs !== null)) return false;
  return Object.entries(piece.delta).every(([key, value]) => value === undefined || value === null || (key === 'content' && value === ''));
}

/** The fields a chunk built by the normalizer takes from the upstream's chunk. */
type ChunkHeader = Pick<ChatChunk, 'id' | 'created' | 'model' | 'system_fingerprint'>;

function chunkLike(template: ChunkHeader, choice: ChunkChoice): ChatChunk {
  const chunk: ChatChunk = { id: template.id, object: 'chat.completion.chunk', created: template.created, model: template.model, choices: [choice] };
  if (template.system_fingerprint !== undefined) chunk.system_fingerprint = template.system_fingerprint;
  return chunk;
}
