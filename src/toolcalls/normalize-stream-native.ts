import type { ToolCallDelta } from '../api/chat-types.js';
import { customCallName, isCustomCall } from '../api/custom-calls.js';
import { ToolCallIdFixer } from './ids.js';
import { emptyArguments, startsNewCall, upstreamIndex, usableId } from './normalize-decisions.js';
import { type NormalizeContext, type NormalizeReport, checkNativeArguments, parseContextOf, resolveCallName } from './normalize-shared.js';
import { ToolCallStreamExtractor } from './stream-extractor.js';
import { TextBuilder } from './text-builder.js';

// A stream choice's state for normalize-stream.ts, and what native tool_call deltas become: names
// complete before a call goes out, ids made usable, indices 0..n-1 in the order calls appear.

export interface NativeCall {
  outIndex: number;
  upstreamId?: string;
  name: string;
  /** Arguments seen so far (checked at the end for the report). */
  args: TextBuilder;
  /** Some fragment held more than whitespace (else the client gets `{}` at the end). */
  hasArgs: boolean;
  released: boolean;
  clientName: string;
  clientId: string;
  /** A custom-tool call: its deltas go on as they come (index and id made usable), nothing checked. */
  custom?: boolean;
}

export class ChoiceState {
  extractor: ToolCallStreamExtractor | undefined;
  readonly native = new Map<number, NativeCall>();
  /** Every native call, also those a later call on the same upstream index replaced in `native` (the report checks them all). */
  readonly nativeCalls: NativeCall[] = [];
  readonly ids = new ToolCallIdFixer();
  private nextIndex = 0;
  calls = 0;
  finished = false;
  /** The client got this choice's first delta (with its role). */
  roleSent = false;

  constructor(ctx: NormalizeContext) {
    const reasoning = ctx.reasoning ?? 'content';
    const calls = ctx.textParsing && ctx.tools.size > 0;
    if (calls || reasoning !== 'content') {
      this.extractor = new ToolCallStreamExtractor(parseContextOf(ctx), { reasoning, ...(calls ? {} : { formats: [] }) });
    }
  }

  /** The client's index of the next call: 0..n-1 in the order calls appear, whatever the upstream numbered. */
  allocateIndex(): number {
    return this.nextIndex++;
  }
}

export function noteArguments(call: NativeCall, fragment: string): void {
  call.args.append(fragment);
  if (!call.hasArgs && !emptyArguments(fragment)) call.hasArgs = true;
}

/** One upstream tool_call delta → what the client gets (nothing while the call's name is incomplete). */
export function nativeDelta(delta: ToolCallDelta, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): ToolCallDelta[] {
  const upstream = upstreamIndex(delta.index, 'tool_calls[].index', ctx.provider);
  let call = state.native.get(upstream);
  // Some upstreams number parallel calls all 0: a new non-empty id on a used index is a new call
  // (an empty one, as DashScope sends on every continuation, is not).
  if (!call || startsNewCall(delta.id, call.upstreamId)) {
    call = { outIndex: state.allocateIndex(), upstreamId: usableId(delta.id), name: '', args: new TextBuilder(), hasArgs: false, released: false, clientName: '', clientId: '' };
    state.native.set(upstream, call);
    state.nativeCalls.push(call);
    state.calls++;
    report.toolCalls++;
    report.mode = 'native';
  }
  call.upstreamId ??= usableId(delta.id);
  if (call.custom === true || (!call.released && isCustomCall(delta))) return [customDelta(delta, call, state)];
  const rawFragment = delta.function?.arguments;
  const fragment = typeof rawFragment === 'string' ? rawFragment : '';
  noteArguments(call, fragment);
  if (!call.released) {
    const namePiece = delta.function?.name;
    if (typeof namePiece === 'string') call.name += namePiece;
    // The name is complete once it is a declared tool or the arguments begin.
    const decoded = ctx.codec ? ctx.codec.decode(call.name) : call.name;
    if (ctx.tools.size > 0 && !ctx.tools.has(decoded) && fragment === '') return [];
    return [releaseNative(call, state, ctx, report, delta)];
  }
  // With no tools declared a name is not resolved: its pieces go on as they come.
  const namePiece = ctx.tools.size === 0 && typeof delta.function?.name === 'string' ? delta.function.name : undefined;
  if (delta.index === call.outIndex && delta.id === undefined && (delta.function?.name === undefined || namePiece !== undefined) && fragment === rawFragment) return [delta];
  // Repeated ids and names are dropped: clients concatenate what they get.
  return [{ index: call.outIndex, function: namePiece !== undefined ? { name: namePiece, arguments: fragment } : { arguments: fragment } }];
}

export function releaseNative(call: NativeCall, state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport, delta?: ToolCallDelta): ToolCallDelta {
  call.released = true;
  call.clientName = resolveCallName(call.name, ctx, report);
  call.clientId = state.ids.fix(call.upstreamId);
  const unchanged =
    delta !== undefined &&
    delta.index === call.outIndex &&
    delta.id === call.clientId &&
    delta.type === 'function' &&
    delta.function?.name === call.clientName &&
    typeof delta.function.arguments === 'string';
  if (unchanged) return delta;
  // Everything before this delta carried no arguments, so this delta's fragment is all there is so far.
  const fragment = delta?.function?.arguments;
  return { ...delta, index: call.outIndex, id: call.clientId, type: 'function', function: { ...delta?.function, name: call.clientName, arguments: typeof fragment === 'string' ? fragment : '' } };
}

/** A custom-tool call's delta as the client gets it: on its own index, the id once and usable. */
function customDelta(delta: ToolCallDelta, call: NativeCall, state: ChoiceState): ToolCallDelta {
  if (!call.released) {
    call.released = true;
    call.custom = true;
    call.clientName = customCallName(delta);
    call.clientId = state.ids.fix(call.upstreamId);
    return { ...delta, index: call.outIndex, id: call.clientId };
  }
  const { id: _repeated, ...rest } = delta;
  return rest.index === call.outIndex ? rest : { ...rest, index: call.outIndex };
}

export function finishReport(state: ChoiceState, ctx: NormalizeContext, report: NormalizeReport): void {
  for (const call of state.nativeCalls) if (call.custom !== true) checkNativeArguments(call.args.text, call.clientName, ctx, report);
}
