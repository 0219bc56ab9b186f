import type { ChatChunk, ChatCompletion, RawChatRequest } from '../api/chat-types.js';
import type { Gateway } from '../gateway.js';
import type { ResponseMode } from '../metrics/index.js';
import { normalizeCompletion, type NormalizeReport } from '../toolcalls/normalize.js';
import { normalizeStream } from '../toolcalls/normalize-stream.js';
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
      headers: Record<string, string>;
    };

export async function runChat(clientRequest: RawChatRequest, input: ChatCallInput, gateway: Gateway): Promise<ChatResult> {
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

  const normalized = normalizeStream(call.chunks, call.normalizeContext);
  const recorder = new StreamAnswerRecorder(gateway, clientRequest, served, input.log, input.info.keyName);
  async function* observed(): AsyncGenerator<ChatChunk> {
    for await (const chunk of normalized.chunks) {
      recorder.observe(chunk);
      if (chunk.choices.length > 0) telemetry.firstToken(served);
      yield chunk;
    }
    const mode = answerMode(normalized.report, call);
    input.info.toolMode = mode;
    input.info.usage = recorder.usage;
    telemetry.answer(served, normalized.report, mode, recorder.usage, toolsDeclared);
    await recorder.finish();
  }
  return { kind: 'stream', chunks: observed(), headers };
}

/** `prompt` when the tools went into the prompt; otherwise what the normalizer saw. */
function answerMode(report: NormalizeReport, call: UpstreamCall): ResponseMode {
  if (report.mode === 'none') return 'none';
  return call.promptMode ? 'prompt' : report.mode;
}
