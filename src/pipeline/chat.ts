import type { ChatChunk, ChatCompletion, ChatRequest } from '../api/chat-types.js';
import type { Gateway } from '../gateway.js';
import type { ResponseMode } from '../metrics/index.js';
import { normalizeCompletion, type NormalizeReport } from '../toolcalls/normalize.js';
import { flatten } from '../providers/chunk-batches.js';
import { createStreamNormalizer } from '../toolcalls/normalize-stream.js';
import { providerContext } from './provider-context.js';
import { recordAnswer, StreamAnswerRecorder } from './record.js';
import { repairStep } from './repair-step.js';
import { targetFor, type ChatCallInput } from './request-info.js';
import { RequestTelemetry, taskHeaderOf } from './telemetry.js';
import { callUpstream, type UpstreamCall } from './upstream-step.js';

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

export async function runChat(clientRequest: ChatRequest, input: ChatCallInput, gateway: Gateway): Promise<ChatResult> {
  input.info.model = clientRequest.model;
  input.info.stream = clientRequest.stream === true;

  const repaired = await repairStep(clientRequest, gateway, input.log, gateway.repairOptions, input.info.keyName);
  const target = targetFor(clientRequest.model, input, gateway.router);
  if (repaired.header) input.info.repairs = repaired.header;
  const context = providerContext(target, input, gateway);
  const headers: Record<string, string> = {};
  if (repaired.header) headers['x-toolgate-repairs'] = repaired.header;
  if (repaired.warnings) headers['x-toolgate-warnings'] = repaired.warnings; // advisory findings (issue 14 §6)
  const telemetry = new RequestTelemetry(gateway, input.info, clientRequest, taskHeaderOf(input.headers));
  const toolsDeclared = (repaired.request.tools?.length ?? 0) > 0;

  const call = await callUpstream(repaired.request, target, { gateway, context, telemetry, info: input.info });
  // A fallback may have answered (callUpstream notes it in the access log): metrics, cost and the
  // ledger belong to the model that did.
  const served = call.target;
  if (call.kind === 'json') {
    telemetry.firstToken(served);
    const normalized = normalizeCompletion(call.completion, call.normalizeContext);
    const mode = answerMode(normalized.report, call);
    input.info.toolMode = mode;
    input.info.usage = normalized.completion.usage;
    headers['x-toolgate-tool-mode'] = mode;
    telemetry.answer(served, normalized.report, mode, normalized.completion.usage, toolsDeclared);
    await recordAnswer(gateway, clientRequest, normalized.completion, served, input.log, input.info.keyName);
    return { kind: 'json', completion: normalized.completion, headers };
  }

  const upstream = call.batches;
  const normalizer = createStreamNormalizer(call.normalizeContext);
  const recorder = new StreamAnswerRecorder(gateway, clientRequest, served, input.log, input.info.keyName);
  // Per batch: normalize, then record and time what the client gets; one async step per batch.
  const observe = (out: ChatChunk[]): void => {
    for (const chunk of out) {
      recorder.observe(chunk);
      if (chunk.choices.length > 0) telemetry.firstToken(served);
    }
  };
  async function* observed(): AsyncGenerator<ChatChunk[]> {
    for await (const batch of upstream) {
      const out: ChatChunk[] = [];
      for (const chunk of batch) normalizer.push(chunk, out);
      observe(out);
      if (out.length > 0) yield out;
    }
    const tail: ChatChunk[] = [];
    normalizer.end(tail);
    observe(tail);
    if (tail.length > 0) yield tail;
    const mode = answerMode(normalizer.report, call);
    input.info.toolMode = mode;
    input.info.usage = recorder.usage;
    telemetry.answer(served, normalizer.report, mode, recorder.usage, toolsDeclared);
    await recorder.finish();
  }
  const batches = observed();
  return { kind: 'stream', batches, chunks: flatten(batches), headers };
}

/** `prompt` when the tools went into the prompt; otherwise what the normalizer saw. */
function answerMode(report: NormalizeReport, call: UpstreamCall): ResponseMode {
  if (report.mode === 'none') return 'none';
  return call.promptMode ? 'prompt' : report.mode;
}
