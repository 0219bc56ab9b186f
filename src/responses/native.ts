import type { Usage } from '../api/chat-types.js';
import { errors, isGatewayError } from '../errors.js';
import { classifyFailure, logFailure } from '../resilience/index.js';
import type { Gateway } from '../pipeline/gateway.js';
import { isEventName, sseEvent } from '../http/sse.js';
import type { ChatCallInput } from '../pipeline/chat.js';
import { providerContext } from '../pipeline/provider-context.js';
import { RequestTelemetry, taskHeaderOf } from '../pipeline/telemetry.js';
import { attempts, callWithFallbacks, fallbacksOf, isUsable, settledOnEnd, type CallScope, type Settle } from '../pipeline/upstream-caller.js';
import type { NativeResponses, ProviderCallContext, SseEvent } from '../providers/types.js';
import type { TargetPermit } from '../resilience/index.js';
import type { ResolvedModel } from '../routing/router.js';
import { createReport } from '../toolcalls/normalize-shared.js';
import { errorEvent } from './events.js';
import { persist, type CreateResult, type Prepared } from './prepared.js';
import { recordReasoningItems, withRestoredReasoning } from './native-reasoning.js';
import { toChatRequest } from './to-chat.js';
import { isRecord, type ResponseObject } from '../api/responses-types.js';

// OpenAI speaks /responses itself: the repaired, restored request goes there as is (JSON or SSE,
// events relayed byte for byte), and OpenAI keeps its own state (previous_response_id, item ids).
// The gateway stores what it relays as well, so restoration and GET work the same on every upstream.

const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/** Serves the request through the chat bridge on `fallback` (a provider without native /responses). */
export type BridgeTo = (fallback: ResolvedModel) => Promise<CreateResult>;

/**
 * The native chain (the target and its fallbacks that speak /responses); when it fails in a way a
 * fallback may take over, the first usable fallback without native /responses answers through the bridge.
 */
export async function nativeCreate(prepared: Prepared, target: ResolvedModel, input: ChatCallInput, gateway: Gateway, bridgeTo?: BridgeTo): Promise<CreateResult> {
  try {
    return await nativeChain(prepared, target, input, gateway);
  } catch (error) {
    if (!bridgeTo || !classifyFailure(error, input.signal).fallbackable) throw error;
    const scope = { gateway, info: input.info, context: providerContext(target, input, gateway) };
    const bridged = fallbacksOf(target, scope, (candidate) => candidate.provider.responses === undefined).find((candidate) => isUsable(candidate, gateway));
    if (!bridged) throw error;
    input.log.warn({ model: target.requested, fallback: bridged.requested, error: error instanceof Error ? error.message : String(error) }, 'native responses failed: trying a fallback through the chat bridge');
    return bridgeTo(bridged);
  }
}

async function nativeChain(prepared: Prepared, target: ResolvedModel, input: ChatCallInput, gateway: Gateway): Promise<CreateResult> {
  const { request } = prepared;
  const settings = target.provider.settings;
  const info = input.info;
  // store: false: reasoning items the client dropped come back from the ledger (native-reasoning.ts).
  const { items, repairsHeader } = await withRestoredReasoning(prepared, gateway, input.log);
  info.repairHeaders(repairsHeader, prepared.warningsHeader);
  const context = providerContext(target, input, gateway);
  const { stream: _stream, ...rest } = request;
  const bodyFor = (candidate: ResolvedModel): Record<string, unknown> => ({ ...rest, model: candidate.upstreamModel, input: items });
  const headers: Record<string, string> = {};
  if (repairsHeader) headers['x-toolgate-repairs'] = repairsHeader;
  if (prepared.warningsHeader) headers['x-toolgate-warnings'] = prepared.warningsHeader;
  const view = toChatRequest(request, [...prepared.previous, ...prepared.items], { provider: settings.name, lenient: true });
  const telemetry = new RequestTelemetry(gateway, info, view, taskHeaderOf(input.headers));
  const scope: CallScope = { gateway, context, telemetry, info };
  const answered = (served: ResolvedModel, response: ResponseObject): void => {
    const calls = response.output.filter((item) => item.type === 'function_call').length;
    const report = { ...createReport(), mode: calls > 0 ? ('native' as const) : ('none' as const), toolCalls: calls };
    const usage = chatUsage(response.usage);
    info.answered({ mode: report.mode, usage, report, calls: response.output.flatMap((item) => (item.type === 'function_call' ? [{ name: String(item.name), arguments: String(item.arguments) }] : [])) });
    telemetry.answer(served, report, report.mode, usage, (view.tools?.length ?? 0) > 0);
  };

  const call = <T>(send: NativeSend<T>) => callNative(scope, target, send);

  if (request.stream !== true) {
    const { result: response, target: served } = await call((native, candidate, candidateContext) => jsonAttempt(() => native.create(bodyFor(candidate), candidateContext)));
    telemetry.firstToken(served);
    if (isResponse(response)) {
      answered(served, response);
      await persist(gateway, prepared, response, input.log);
      await recordReasoningItems(prepared, response, served.provider.settings.name, gateway, input.log);
    }
    return { kind: 'json', response: response as ResponseObject, headers };
  }

  const { result: events, target: served } = await call((native, candidate, candidateContext) => async (permit, settle) =>
    settledOnEnd(readEvents(await native.stream(bodyFor(candidate), candidateContext), candidate, gateway), permit, settle, scope),
  );
  async function* frames(): AsyncGenerator<string> {
    let sequence = -1;
    try {
      for await (const { type, text, data } of events) {
        if (isRecord(data) && typeof data.sequence_number === 'number') sequence = data.sequence_number;
        if (type !== 'response.created' && type !== 'response.in_progress') telemetry.firstToken(served);
        if (TERMINAL.has(type) && isRecord(data) && isResponse(data.response)) {
          answered(served, data.response);
          await persist(gateway, prepared, data.response, input.log);
          await recordReasoningItems(prepared, data.response, served.provider.settings.name, gateway, input.log);
        }
        yield sseEvent(type, text);
      }
    } catch (error) {
      if (classifyFailure(error, input.signal).row === 'client_aborted') return;
      const mapped = isGatewayError(error) ? error : errors.internal();
      info.failed(mapped.message);
      logFailure(input.log, error, input.signal, 'native responses stream ended with an error');
      const frame = { ...errorEvent(mapped, 'server_error'), sequence_number: sequence + 1 };
      yield sseEvent('error', JSON.stringify(frame));
    }
  }
  return { kind: 'stream', frames: frames(), headers };
}

interface NativeEvent {
  type: string;
  /** The event's data as relayed: the upstream's text, keys it quotes scrubbed. */
  text: string;
  data: unknown;
}

/** Reads the upstream's events once: scrubbed, parsed, typed; an event type with CR/LF is a bad response. */
async function* readEvents(events: AsyncIterable<SseEvent>, candidate: ResolvedModel, gateway: Gateway): AsyncGenerator<NativeEvent> {
  for await (const event of events) {
    // Upstream text goes to the client: keys it quotes (an error event) are scrubbed first.
    const text = gateway.auth.redact(event.data);
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined;
    }
    // The data's own type names the event: an `event:` line may be generic (`event: message`).
    const type = isRecord(data) && typeof data.type === 'string' ? data.type : (event.event ?? 'message');
    if (!isEventName(type)) throw errors.upstreamBadResponse(candidate.provider.settings.name, 'an event type with a line break');
    yield { type, text, data };
  }
}

/** One attempt at a native endpoint: what to send to `candidate`, as the upstream caller's `send`. */
export type NativeSend<T> = (native: NativeResponses, candidate: ResolvedModel, context: ProviderCallContext) => (permit: TargetPermit, settle: Settle) => Promise<T>;

/**
 * The one upstream caller for a native Responses endpoint: breakers, retries, redaction, and the
 * fallbacks whose provider speaks it (`speaks`: all of /responses by default).
 */
export function callNative<T>(scope: CallScope, target: ResolvedModel, send: NativeSend<T>, speaks: (native: NativeResponses) => boolean = () => true): Promise<{ result: T; target: ResolvedModel }> {
  return callWithFallbacks(
    scope,
    target,
    (candidate, candidateContext, canFallBack) => attempts({ scope, target: candidate, context: candidateContext, canFallBack, send: send(nativeOf(candidate), candidate, candidateContext) }),
    (candidate) => candidate.provider.responses !== undefined && speaks(candidate.provider.responses),
  );
}

/** A JSON exchange as one attempt: settled as a success once it answers. */
export function jsonAttempt<T>(exchange: () => Promise<T>): (permit: TargetPermit, settle: Settle) => Promise<T> {
  return async (permit, settle) => {
    const answer = await exchange();
    settle('success');
    permit.report('success');
    return answer;
  };
}

function nativeOf(candidate: ResolvedModel): NativeResponses {
  const native = candidate.provider.responses;
  if (!native) throw errors.internal(`Provider '${candidate.provider.settings.name}' has no native Responses API.`);
  return native;
}

function isResponse(value: unknown): value is ResponseObject {
  return isRecord(value) && typeof value.id === 'string' && Array.isArray(value.output);
}

function chatUsage(usage: unknown): Usage | undefined {
  if (!isRecord(usage)) return undefined;
  const num = (value: unknown): number => (typeof value === 'number' ? value : 0);
  const input = isRecord(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isRecord(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    prompt_tokens: num(usage.input_tokens),
    completion_tokens: num(usage.output_tokens),
    total_tokens: num(usage.total_tokens),
    prompt_tokens_details: { cached_tokens: num(input.cached_tokens) },
    completion_tokens_details: { reasoning_tokens: num(output.reasoning_tokens) },
  };
}
