import type { ChatChunk, ChatCompletion, ChatRequest, RawChatRequest, ToolCall } from '../api/chat-types.js';
import { reasoningTextOf } from '../api/reasoning-text.js';
import { errors } from '../errors.js';
import type { Gateway } from './gateway.js';
import type { ResponseMode } from '../metrics/index.js';
import { normalizeCompletion, toLegacyCompletion, type NormalizeReport } from '../toolcalls/normalize.js';
import { answerWarnings } from '../toolcalls/normalize-shared.js';
import { flatten } from '../providers/chunk-batches.js';
import { addAnswerWarnings, answerWarningsHeader, answerWarningsOf, type AnswerWarnings } from '../providers/answer-warnings.js';
import { createStreamNormalizer, type StreamNormalizer } from '../toolcalls/normalize-stream.js';
import type { ResolvedModel } from '../routing/router.js';
import { staged, type BatchStage } from './batch-stage.js';
import { providerContext } from './provider-context.js';
import { recordAnswer, StreamAnswerRecorder } from './record.js';
import { repairStep } from './repair-step.js';
import { scopeOf } from '../util/scope.js';
import { targetFor, UpstreamTextKeeper, type AnswerNote, type ChatCallInput, type RequestInfo } from './request-info.js';
import { RequestTelemetry, taskHeaderOf } from './telemetry.js';
import { termsOf, unsatisfiable } from '../contract/index.js';
import { contractRunFor } from './contract-run.js';
import { ContractedStream, LastAttemptReport } from './contract-stream.js';
import { joinWarnings, keepJsonContract, type JsonAnswer } from './contract-step.js';
import type { CallScope } from './upstream-caller.js';
import { callUpstream, type UpstreamCall } from './upstream-step.js';
import type { WorkBudgets } from '../state/work-budgets.js';

// The one path every chat-shaped request takes, read top to bottom:
// (validated request) → repair → route model → prepare for the provider → call → normalize → record.
// /v1/chat/completions replies with it directly; /v1/responses bridges to it for non-OpenAI upstreams.

export type { ChatCallInput } from './request-info.js';

export type ChatResult =
  | { kind: 'json'; completion: ChatCompletion; headers: Record<string, string> }
  | {
      kind: 'stream';
      /** Normalized chunks, usage chunk included (the caller decides whether the client gets it). */
      chunks: AsyncIterable<ChatChunk>;
      /** The same chunks a batch at a time (what one upstream read brought); read one of the two, not both. */
      batches: AsyncIterable<ChatChunk[]>;
      headers: Record<string, string>;
    };

export async function runChat(clientRequest: RawChatRequest, input: ChatCallInput, gateway: Gateway): Promise<ChatResult> {
  input.info.requested(clientRequest.model, clientRequest.stream === true);

  // The tenant's best-effort work budgets (JSON repair), looked up once for the request.
  const budgets = gateway.workBudgets.forScope(scopeOf(input.info.keyName));
  const repaired = await repairStep(clientRequest, gateway, input.log, gateway.repairOptions, input.info.keyName, budgets);
  refuseUnsatisfiableChoice(repaired.request);
  const target = targetFor(clientRequest.model, input, gateway.router);
  input.info.repaired({ target: 'messages', findings: repaired.findings, before: clientRequest.messages, after: repaired.request.messages });
  input.info.repairHeaders(repaired.header, repaired.warnings);
  const context = providerContext(target, input, gateway);
  const headers: Record<string, string> = {};
  if (repaired.header) headers['x-toolgate-repairs'] = repaired.header;
  if (repaired.warnings) headers['x-toolgate-warnings'] = repaired.warnings; // advisory findings: visible, never silent
  const telemetry = new RequestTelemetry(gateway, input.info, clientRequest, taskHeaderOf(input.headers));
  const toolsDeclared = (repaired.request.tools?.length ?? 0) > 0;

  // Legacy in, legacy out: a client that sent `functions` gets `function_call` answers (re-asks too).
  const scope: CallScope = { gateway, context, telemetry, info: input.info, restoreReasoning: repaired.restoreReasoning, legacyFunctions: usesLegacyFunctions(clientRequest) };
  const started = performance.now();
  const call = await callUpstream(repaired.request, target, scope, budgets);
  // A fallback may have answered (callUpstream notes it in the access log): metrics, cost and the
  // ledger belong to the model that did.
  const served = call.target;
  // The request's tool contract (docs/contract.md); undefined when there is nothing to enforce.
  const contract = contractRunFor(repaired.request, served, { gateway, info: input.info, signal: input.signal, budget: budgets.repair });
  if (call.kind === 'json') {
    telemetry.firstToken(served);
    // A legacy answer is judged as the tool_calls it is, and made legacy after (docs/contract.md).
    const legacyAfter = contract !== undefined && scope.legacyFunctions === true;
    let answer = jsonAnswerOf(call, started, legacyAfter);
    if (contract) {
      const kept = await keepJsonContract(contract, answer, (request) => askAgain(request, contract.reaskTarget, scope, budgets, legacyAfter));
      answer = kept.answer;
      if (legacyAfter) answer = { ...answer, completion: toLegacyCompletion(answer.completion) };
      const warnings = joinWarnings(headers['x-toolgate-warnings'], kept.warnings);
      if (warnings) headers['x-toolgate-warnings'] = warnings;
      // Arguments handed on repaired (docs/answers.md): after the request's own repairs.
      const repairs = joinWarnings(headers['x-toolgate-repairs'], kept.repairs);
      if (repairs) headers['x-toolgate-repairs'] = repairs;
      input.info.repairHeaders(repairs, warnings);
    }
    const { completion, report } = answer;
    const mode = answerMode(report, answer.promptMode);
    input.info.answered({ mode, usage: completion.usage, report, ...(input.info.journal ? answerText(answer.upstream, completion) : NO_CALLS) });
    headers['x-toolgate-tool-mode'] = mode;
    // What the client should know about the answer although nothing was changed (docs/answers.md).
    const warned = joinWarnings(headers['x-toolgate-warnings'], answerWarnings(report));
    if (warned) headers['x-toolgate-warnings'] = warned;
    const upstreamWarnings = answerWarningsOf(answer.upstream);
    if (upstreamWarnings) withAnswerWarnings(headers, upstreamWarnings, input.info, repaired.header);
    telemetry.answer(answer.target, report, mode, completion.usage, toolsDeclared, upstreamWarnings);
    await recordAnswer(gateway, clientRequest, completion, answer.target, input.log, input.info.keyName);
    return { kind: 'json', completion, headers };
  }

  // With the inspector on, the upstream's own text is kept (bounded) to show a text call's raw span.
  const keeper = gateway.loaded.config.inspector.enabled ? new UpstreamTextKeeper(input.info) : undefined;
  const recorder = new StreamAnswerRecorder(gateway, clientRequest, served, input.log, input.info.keyName);
  if (contract) {
    // Calls are held until each answer is judged; re-asks continue the same client stream.
    const reports = new LastAttemptReport();
    const keeperFor = keeper ? (): UpstreamTextKeeper => new UpstreamTextKeeper(input.info) : undefined;
    const contracted = new ContractedStream(contract, call, started, reports, (request) => askAgainStream(request, contract.reaskTarget, scope, budgets), keeperFor);
    const stage = new ChatStreamStage(reports, recorder, telemetry, served, input.info, undefined, call.promptMode, toolsDeclared);
    return new StreamResult(staged<ChatChunk>(contracted, stage), headers);
  }
  const stage = new ChatStreamStage(createStreamNormalizer(call.normalizeContext), recorder, telemetry, served, input.info, keeper, call.promptMode, toolsDeclared);
  return new StreamResult(staged<ChatChunk>(call.batches, stage), headers);
}

// What a stream keeps for its whole life is in these objects: no closures over runChat's locals
// (each stream kept them and their context).

/** Per batch: normalize, then record and time what the client gets; one async step per batch. */
class ChatStreamStage implements BatchStage<ChatChunk> {
  constructor(
    private readonly normalizer: StreamNormalizer,
    private readonly recorder: StreamAnswerRecorder,
    private readonly telemetry: RequestTelemetry,
    private readonly served: ResolvedModel,
    private readonly info: RequestInfo,
    private readonly keeper: UpstreamTextKeeper | undefined,
    private readonly promptMode: boolean,
    private readonly toolsDeclared: boolean,
  ) {}

  /** What the adapter noted on the upstream's chunks (counted when the stream ends; the head went out long before). */
  private warnings: AnswerWarnings | undefined;

  batch(batch: ChatChunk[]): ChatChunk[] {
    this.keeper?.observe(batch);
    for (const chunk of batch) {
      // Notes ride on the chunk that ends a choice: only those are looked up.
      if (chunk.choices.length === 0 || chunk.choices[0].finish_reason === null) continue;
      const noted = answerWarningsOf(chunk);
      if (noted) addAnswerWarnings((this.warnings ??= {}), noted);
    }
    // The batch itself when nothing in it changed (the usual read): no array per read.
    const out = this.normalizer.pushAll(batch);
    this.observe(out);
    return out;
  }

  closed(): void {
    this.keeper?.finish();
  }

  tail(): ChatChunk[] {
    const tail: ChatChunk[] = [];
    this.normalizer.end(tail);
    this.observe(tail);
    return tail;
  }

  async finish(): Promise<void> {
    const { normalizer, recorder, info } = this;
    const mode = answerMode(normalizer.report, this.promptMode);
    info.answered({ mode, usage: recorder.usage, report: normalizer.report, ...(info.journal ? { clientText: recorder.answer.content, calls: recorder.answer.calls.map(callOf), reasoning: recorder.answer.reasoning } : NO_CALLS) });
    this.telemetry.answer(this.served, normalizer.report, mode, recorder.usage, this.toolsDeclared, this.warnings);
    await recorder.finish();
  }

  private observe(out: ChatChunk[]): void {
    for (const chunk of out) {
      this.recorder.observe(chunk);
      if (chunk.choices.length > 0) this.telemetry.firstToken(this.served);
    }
  }
}

/** The stream result; chunk by chunk only for the caller that asks (the Responses bridge): no generator otherwise. */
class StreamResult {
  readonly kind = 'stream';

  constructor(
    readonly batches: AsyncIterable<ChatChunk[]>,
    readonly headers: Record<string, string>,
  ) {}

  get chunks(): AsyncIterable<ChatChunk> {
    return flatten(this.batches);
  }
}

/** Adds the adapter's warnings to a JSON answer's x-toolgate-warnings header (after the request's own) and the request journal. */
function withAnswerWarnings(headers: Record<string, string>, warnings: AnswerWarnings, info: RequestInfo, repairs: string | undefined): void {
  const added = answerWarningsHeader(warnings);
  if (added === undefined) return;
  const before = headers['x-toolgate-warnings'];
  headers['x-toolgate-warnings'] = before ? `${before},${added}` : added;
  info.repairHeaders(repairs, headers['x-toolgate-warnings']);
}

/** A JSON call's answer, normalized (`asToolCalls`: not in the legacy shape yet), with how long the call took. */
function jsonAnswerOf(call: UpstreamCall & { kind: 'json' }, started: number, asToolCalls = false): JsonAnswer {
  const normalized = normalizeCompletion(call.completion, asToolCalls ? { ...call.normalizeContext, legacyFunctions: false } : call.normalizeContext);
  return { upstream: call.completion, completion: normalized.completion, report: normalized.report, promptMode: call.promptMode, target: call.target, durationMs: performance.now() - started };
}

/** A re-ask (JSON): the same model, the corrective request. */
async function askAgain(request: ChatRequest, target: ResolvedModel, scope: CallScope, budgets: WorkBudgets, asToolCalls: boolean): Promise<JsonAnswer> {
  const started = performance.now();
  const call = await callUpstream(request, target, scope, budgets);
  if (call.kind !== 'json') throw errors.internal('a re-ask for a JSON answer came back as a stream');
  return jsonAnswerOf(call, started, asToolCalls);
}

/** A re-ask (stream): the same model, the corrective request. */
async function askAgainStream(request: ChatRequest, target: ResolvedModel, scope: CallScope, budgets: WorkBudgets): Promise<UpstreamCall & { kind: 'stream' }> {
  const call = await callUpstream(request, target, scope, budgets);
  if (call.kind !== 'stream') throw errors.internal('a re-ask for a stream came back as JSON');
  return call;
}

/** The client speaks the legacy function-calling protocol: `functions` and no `tools`. */
function usesLegacyFunctions(request: RawChatRequest): boolean {
  return Array.isArray(request.functions) && request.functions.length > 0 && !(Array.isArray(request.tools) && request.tools.length > 0);
}

/** The answer note without the text and calls only the inspector's journal reads (RequestInfo.journal off). */
const NO_CALLS: Pick<AnswerNote, 'calls'> = { calls: [] };

/** `prompt` when the tools went into the prompt; otherwise what the normalizer saw. */
function answerMode(report: NormalizeReport, promptMode: boolean): ResponseMode {
  if (report.mode === 'none') return 'none';
  return promptMode ? 'prompt' : report.mode;
}

/** Choice 0's text before and after normalization, and its calls, for the request journal. */
function answerText(upstream: ChatCompletion, normalized: ChatCompletion): Pick<AnswerNote, 'upstreamText' | 'clientText' | 'calls' | 'reasoning'> {
  const before = upstream.choices[0]?.message;
  const after = normalized.choices[0]?.message;
  const reasoning = after !== undefined ? reasoningTextOf(after) : '';
  return {
    upstreamText: typeof before?.content === 'string' ? before.content : undefined,
    clientText: typeof after?.content === 'string' ? after.content : undefined,
    calls: (after?.tool_calls ?? []).map(callOf),
    reasoning: reasoning !== '' ? reasoning : undefined,
  };
}

function callOf(call: ToolCall): { name: string; arguments: string } {
  return { name: call.function?.name ?? '', arguments: typeof call.function?.arguments === 'string' ? call.function.arguments : '' };
}

/** A tool_choice no answer could keep (a call required, no tool it may name declared) is the client's 400. */
function refuseUnsatisfiableChoice(request: ChatRequest): void {
  const terms = termsOf(request);
  const reason = terms && unsatisfiable(terms);
  if (reason) throw errors.invalidRequest(reason, 'tool_choice', 'invalid_value');
}
