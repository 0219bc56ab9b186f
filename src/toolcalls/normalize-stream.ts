import type { ChatChunk, ChunkChoice, ChunkDelta } from '../api/chat-types.js';
import { newToolCallId } from './ids.js';
import { finishReasonFor, isCutOff, upstreamIndex } from './normalize-decisions.js';
import { type NormalizeContext, type NormalizeReport, type StreamNormalizer, createReport, fixCallArguments, noteTextCallName } from './normalize-shared.js';
import { type ChunkHeader, chunkLike, isBlank, toLegacyPiece, withRole, withToolCalls } from './normalize-stream-pieces.js';
import { ChoiceState, finishReport, nativeDelta, noteArguments, releaseNative } from './normalize-stream-native.js';
import type { ExtractorEvent } from './stream-extractor.js';

// The streaming twin of normalizeCompletion, by the same decisions (normalize-decisions.ts). Prose
// goes out as it arrives (the text extractor holds back only what could start a call); native
// tool_call deltas pass through with names decoded/aliased (a call's deltas wait until its name is
// complete), ids made usable and indices 0..n-1 in the order the calls appear; calls written in
// text go out as OpenAI tool_call deltas (a header delta with id, type, full name and arguments "",
// then the arguments); the first delta of a choice carries the role; the choice's last chunk says
// finish_reason "tool_calls" unless the upstream cut the answer off, and says it once.
// Usage-only chunks and chunks needing no change pass through as the same objects.

export type { StreamNormalizer } from './normalize-shared.js';

export function createStreamNormalizer(ctx: NormalizeContext): StreamNormalizer {
  return new ChunkNormalizer(ctx);
}

class ChunkNormalizer implements StreamNormalizer {
  readonly report = createReport();
  private readonly states = new Map<number, ChoiceState>();
  /**
   * What end() copies from the last chunk, not the chunk: that would keep its choices and the
   * upstream text it remembers (a slice of the read it came in) until the stream ends.
   */
  private last: ChunkHeader | undefined;
  /** A usage chunk that came before the end of the answer (see holdsUsage). */
  private heldUsage: ChatChunk | undefined;

  constructor(private readonly ctx: NormalizeContext) {}

  private stateOf(index: number): ChoiceState {
    let state = this.states.get(index);
    if (!state) {
      upstreamIndex(index, 'choices[].index', this.ctx.provider);
      state = new ChoiceState(this.ctx);
      this.states.set(index, state);
    }
    return state;
  }

  pushAll(batch: ChatChunk[]): ChatChunk[] {
    let out: ChatChunk[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      const chunk = batch[i];
      if (this.holdsUsage(chunk)) {
        out ??= batch.slice(0, i);
        continue;
      }
      if (this.passes(chunk)) {
        out?.push(chunk);
        continue;
      }
      const made: ChatChunk[] = [];
      this.changed(chunk, made);
      if (out === undefined && made.length === 1 && made[0] === chunk) continue;
      out ??= batch.slice(0, i);
      out.push(...made);
    }
    return out ?? batch;
  }

  push(chunk: ChatChunk, out: ChatChunk[]): void {
    if (this.holdsUsage(chunk)) return;
    if (this.passes(chunk)) out.push(chunk);
    else this.changed(chunk, out);
  }

  /**
   * A usage chunk (`choices: []` with usage) that comes before every choice has finished is held to
   * the end: clients read usage from the last chunk before [DONE], as OpenAI sends it.
   */
  private holdsUsage(chunk: ChatChunk): boolean {
    if (chunk.choices.length !== 0 || typeof chunk.usage !== 'object' || chunk.usage === null) return false;
    let open = this.states.size === 0;
    for (const state of this.states.values()) if (!state.finished) open = true;
    if (!open) {
      this.heldUsage = undefined; // a later usage chunk says it all
      return false;
    }
    this.heldUsage = chunk;
    return true;
  }

  /** The usual chunk, decided without building pieces: true when it goes out as it is (its state updated); false changes nothing. */
  private passes(chunk: ChatChunk): boolean {
    if (chunk.choices.length === 0) return true; // usage-only
    if (chunk.choices.length !== 1) return false;
    // The usual case, without the bookkeeping for several choices.
    const choice = chunk.choices[0];
    const state = this.stateOf(choice.index);
    if (!state.roleSent && choice.delta.role !== 'assistant') return false;
    if (!passesUnchanged(choice, state) && (this.ctx.legacyFunctions === true || !passesAsFragment(choice, state))) return false;
    state.roleSent = true;
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
    const main: ChunkChoice[] = [];
    const extra: ChunkChoice[] = [];
    let changed = false;
    for (const choice of chunk.choices) {
      const pieces = this.piecesOf(choice);
      if (pieces.length !== 1 || pieces[0] !== choice) changed = true;
      if (pieces.length > 0) main.push(pieces[0]);
      extra.push(...pieces.slice(1));
    }
    if (!changed) {
      out.push(chunk);
      return;
    }
    // A chunk whose choices all came to nothing still carries its usage.
    if (main.length > 0 || (chunk.usage !== undefined && chunk.usage !== null)) out.push({ ...chunk, choices: main });
    for (const piece of extra) out.push(chunkLike(chunk, piece));
  }

  /** One upstream choice's pieces as the client gets them: the role on the first, the legacy shape when asked for. */
  private piecesOf(choice: ChunkChoice): ChunkChoice[] {
    const state = this.stateOf(choice.index);
    return this.dressed(normalizeChoice(choice, state, this.ctx, this.report), state, choice);
  }

  private dressed(pieces: ChunkChoice[], state: ChoiceState, original?: ChunkChoice): ChunkChoice[] {
    let out = pieces;
    if (this.ctx.legacyFunctions === true) {
      out = [];
      for (const piece of pieces) {
        const legacy = toLegacyPiece(piece);
        if (legacy !== undefined) out.push(legacy);
      }
    }
    if (!state.roleSent && out.length > 0) {
      state.roleSent = true;
      const first = withRole(out[0]);
      if (first !== out[0]) out = [first, ...out.slice(1)];
    }
    return original !== undefined && out.length === 1 && out[0] === original ? [original] : out;
  }

  end(out: ChatChunk[]): void {
    const { states, last, ctx, report } = this;
    // Upstream ended without a finish_reason for some choice: flush what was held back.
    for (const [index, state] of states) {
      if (state.finished || !last) continue;
      const pieces = [...flushChoice(index, state, ctx, report, false)];
      if (state.calls > 0) pieces.push({ index, delta: {}, finish_reason: 'tool_calls' });
      for (const piece of this.dressed(pieces, state)) out.push(chunkLike(last, piece));
    }
    if (this.heldUsage !== undefined) out.push(this.heldUsage);
    this.heldUsage = undefined;
    for (const state of states.values()) finishReport(state, ctx, report);
  }
}

/** The usual prose token, decided without building pieces: what normalizeChoice would return as `[choice]`. False changes no state. */
function passesUnchanged(choice: ChunkChoice, state: ChoiceState): boolean {
  const delta = choice.delta;
  if (choice.finish_reason !== null || (delta.tool_calls && delta.tool_calls.length > 0)) return false;
  if (state.finished) return true;
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
  if (choice.finish_reason !== null || state.finished || state.extractor || !calls || calls.length !== 1) return false;
  if (delta.content !== undefined && delta.content !== null && delta.content !== '') return false;
  const fragment = calls[0];
  if (fragment.id !== undefined || typeof fragment.index !== 'number' || fragment.function?.name !== undefined) return false;
  const call = state.native.get(fragment.index);
  const args = fragment.function?.arguments ?? '';
  if (!call || !call.released || call.outIndex !== fragment.index || typeof args !== 'string') return false;
  noteArguments(call, args);
  return true;
}

/** The pieces one upstream choice becomes, in order; `[choice]` itself when nothing changes. */
function normalizeChoice(choice: ChunkChoice, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ChunkChoice[] {
  const delta = choice.delta;
  if (state.finished) return afterFinish(choice);
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

/** The choice already finished: a second finish_reason, or calls after it, are not passed on. */
function afterFinish(choice: ChunkChoice): ChunkChoice[] {
  const delta = choice.delta;
  const hasCalls = delta.tool_calls !== undefined && delta.tool_calls !== null;
  if (choice.finish_reason === null && !hasCalls) return [choice];
  const piece: ChunkChoice = { ...choice, delta: hasCalls ? withToolCalls(delta, []) : delta, finish_reason: null };
  return isBlank(piece) ? [] : [piece];
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
    const cutOff = isCutOff(finish);
    if (cutOff) report.cutOff = true;
    after.push(...flushChoice(index, state, ctx, report, cutOff));
    finish = finishReasonFor(finish, state.calls > 0);
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

/** Releases held text, text calls and native calls whose names were still arriving; `{}` for native calls that sent no arguments. */
function flushChoice(index: number, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport, cutOff: boolean): ChunkChoice[] {
  const pieces: ChunkChoice[] = [];
  if (state.extractor) {
    pieces.push(...eventsToPieces(index, state.extractor.end(cutOff), state, ctx, report));
    report.unknownNames += state.extractor.rejectedNames;
    report.malformedCalls += state.extractor.malformedCalls;
    state.extractor = undefined;
  }
  for (const call of state.native.values()) {
    if (!call.released) pieces.push({ index, delta: { tool_calls: [releaseNative(call, state, ctx, report)] }, finish_reason: null });
  }
  for (const call of state.nativeCalls) {
    if (call.hasArgs || cutOff || call.custom === true) continue;
    call.hasArgs = true;
    call.args.append('{}');
    pieces.push({ index, delta: { tool_calls: [{ index: call.outIndex, function: { arguments: '{}' } }] }, finish_reason: null });
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

