import type { ChatChunk, ChatCompletion, RawChatRequest, ToolCall } from '../api/chat-types.js';
import type { Gateway } from '../gateway.js';
import type { ResponseMode } from '../metrics/index.js';
import { normalizeCompletion, type NormalizeReport } from '../toolcalls/normalize.js';
import { answerWarnings } from '../toolcalls/normalize-shared.js';
import { flatten } from '../providers/chunk-batches.js';
import { createStreamNormalizer, type StreamNormalizer } from '../toolcalls/normalize-stream.js';
import type { ResolvedModel } from '../routing/router.js';
import { staged, type BatchStage } from './batch-stage.js';
import { providerContext } from './provider-context.js';
import { recordAnswer, StreamAnswerRecorder } from './record.js';
import { repairStep } from './repair-step.js';
import { scopeOf } from '../state/scope.js';
import { targetFor, UpstreamTextKeeper, type AnswerNote, type ChatCallInput, type RequestInfo } from './request-info.js';
import { RequestTelemetry, taskHeaderOf } from './telemetry.js';
import { callUpstream } from './upstream-step.js';

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
  const target = targetFor(clientRequest.model, input, gateway.router);
  input.info.repaired({ target: 'messages', findings: repaired.findings, before: clientRequest.messages, after: repaired.request.messages });
  input.info.repairHeaders(repaired.header, repaired.warnings);
  const context = providerContext(target, input, gateway);
  const headers: Record<string, string> = {};
  if (repaired.header) headers['x-toolgate-repairs'] = repaired.header;
  if (repaired.warnings) headers['x-toolgate-warnings'] = repaired.warnings; // advisory findings (issue 14 §6)
  const telemetry = new RequestTelemetry(gateway, input.info, clientRequest, taskHeaderOf(input.headers));
  const toolsDeclared = (repaired.request.tools?.length ?? 0) > 0;

  const call = await callUpstream(repaired.request, target, { gateway, context, telemetry, info: input.info }, budgets);
  // A fallback may have answered (callUpstream notes it in the access log): metrics, cost and the
  // ledger belong to the model that did.
  const served = call.target;
  // Legacy in, legacy out: a client that sent `functions` gets `function_call` answers.
  const normalizeContext = usesLegacyFunctions(clientRequest) ? { ...call.normalizeContext, legacyFunctions: true } : call.normalizeContext;
  if (call.kind === 'json') {
    telemetry.firstToken(served);
    const normalized = normalizeCompletion(call.completion, normalizeContext);
    const mode = answerMode(normalized.report, call.promptMode);
    input.info.answered({ mode, usage: normalized.completion.usage, report: normalized.report, ...(input.info.journal ? answerText(call.completion, normalized.completion) : NO_CALLS) });
    headers['x-toolgate-tool-mode'] = mode;
    // What the client should know about the answer although nothing was changed (docs/answers.md).
    const warned = answerWarnings(normalized.report);
    if (warned) headers['x-toolgate-warnings'] = headers['x-toolgate-warnings'] ? `${headers['x-toolgate-warnings']},${warned}` : warned;
    telemetry.answer(served, normalized.report, mode, normalized.completion.usage, toolsDeclared);
    await recordAnswer(gateway, clientRequest, normalized.completion, served, input.log, input.info.keyName);
    return { kind: 'json', completion: normalized.completion, headers };
  }

  // With the inspector on, the upstream's own text is kept (bounded) to show a text call's raw span.
  const keeper = gateway.loaded.config.inspector.enabled ? new UpstreamTextKeeper(input.info) : undefined;
  const recorder = new StreamAnswerRecorder(gateway, clientRequest, served, input.log, input.info.keyName);
  const stage = new ChatStreamStage(createStreamNormalizer(normalizeContext), recorder, telemetry, served, input.info, keeper, call.promptMode, toolsDeclared);
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

  batch(batch: ChatChunk[]): ChatChunk[] {
    this.keeper?.observe(batch);
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
    info.answered({ mode, usage: recorder.usage, report: normalizer.report, ...(info.journal ? { clientText: recorder.answer.content, calls: recorder.answer.calls.map(callOf) } : NO_CALLS) });
    this.telemetry.answer(this.served, normalizer.report, mode, recorder.usage, this.toolsDeclared);
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
function answerText(upstream: ChatCompletion, normalized: ChatCompletion): Pick<AnswerNote, 'upstreamText' | 'clientText' | 'calls'> {
  const before = upstream.choices[0]?.message;
  const after = normalized.choices[0]?.message;
  return {
    upstreamText: typeof before?.content === 'string' ? before.content : undefined,
    clientText: typeof after?.content === 'string' ? after.content : undefined,
    calls: (after?.tool_calls ?? []).map(callOf),
  };
}

function callOf(call: ToolCall): { name: string; arguments: string } {
  return { name: call.function?.name ?? '', arguments: typeof call.function?.arguments === 'string' ? call.function.arguments : '' };
}
