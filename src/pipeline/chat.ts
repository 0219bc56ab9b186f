import type { FastifyBaseLogger as Logger } from 'fastify';
import { parseChatRequest } from '../api/chat-schema.js';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../api/chat-types.js';
import { errors, type GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import { requiresKey } from '../providers/registry.js';
import type { ProviderCallContext } from '../providers/types.js';
import { normalizeCompletion } from '../toolcalls/normalize.js';
import { normalizeStream } from '../toolcalls/normalize-stream.js';
import { recordAnswer, StreamAnswerRecorder } from './record.js';
import { repairStep } from './repair-step.js';
import type { RequestInfo } from './request-info.js';
import { callUpstream, type UpstreamCall } from './upstream-step.js';
import { sseData } from '../http/sse.js';
import { RequestTelemetry } from './telemetry.js';
import type { NormalizeReport } from '../toolcalls/normalize.js';
import type { ResponseMode } from '../metrics/index.js';

// The one path of POST /v1/chat/completions, read top to bottom:
// validate → repair → route model → prepare for the provider → call → normalize → record → reply.

export interface ChatHttpInput {
  body: unknown;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  signal: AbortSignal;
  log: Logger;
  info: RequestInfo;
}

export type ChatOutcome =
  | { kind: 'json'; body: ChatCompletion; headers: Record<string, string> }
  | { kind: 'stream'; frames: AsyncIterable<string>; headers: Record<string, string> };

export async function handleChatCompletion(input: ChatHttpInput, gateway: Gateway): Promise<ChatOutcome> {
  const clientRequest = parseChatRequest(input.body);
  input.info.model = clientRequest.model;
  input.info.stream = clientRequest.stream === true;

  const repaired = await repairStep(clientRequest, gateway, input.log);
  const target = gateway.router.resolve(clientRequest.model);
  input.info.provider = target.provider.settings.name;
  input.info.upstreamModel = target.upstreamModel;
  if (repaired.header) input.info.repairs = repaired.header;

  const settings = target.provider.settings;
  if (requiresKey(settings) && !settings.apiKey) {
    throw errors.providerKeyMissing(settings.name, settings.apiKeyEnv ?? `the apiKey of provider '${settings.name}'`);
  }

  const context: ProviderCallContext = {
    upstreamModel: target.upstreamModel,
    signal: input.signal,
    requestId: input.requestId,
    log: input.log,
    ledger: gateway.ledger,
    forwardHeaders: pickForwardHeaders(input.headers, gateway.forwardHeaderNames),
  };
  const headers: Record<string, string> = {};
  if (repaired.header) headers['x-toolgate-repairs'] = repaired.header;

  const taskHeader = input.headers['x-toolgate-task-id'];
  const telemetry = new RequestTelemetry(gateway, input.info, settings.name, clientRequest, target.upstreamModel, typeof taskHeader === 'string' ? taskHeader : undefined);
  const toolsDeclared = (repaired.request.tools?.length ?? 0) > 0;
  const call = await callUpstream(repaired.request, target, context, gateway, telemetry, input.info);
  if (call.kind === 'json') {
    telemetry.firstToken();
    const normalized = normalizeCompletion(call.completion, call.normalizeContext);
    const mode = answerMode(normalized.report, call);
    input.info.toolMode = mode;
    input.info.usage = normalized.completion.usage;
    headers['x-toolgate-tool-mode'] = mode;
    telemetry.answer(normalized.report, mode, normalized.completion.usage, toolsDeclared);
    await recordAnswer(gateway, clientRequest, normalized.completion, target, input.log);
    return { kind: 'json', body: normalized.completion, headers };
  }

  const includeUsage = clientRequest.stream_options?.include_usage === true;
  const normalized = normalizeStream(call.chunks, call.normalizeContext);
  const recorder = new StreamAnswerRecorder(gateway, clientRequest, target, input.log);
  const finish = async (): Promise<void> => {
    const mode = answerMode(normalized.report, call);
    input.info.toolMode = mode;
    input.info.usage = recorder.usage;
    telemetry.answer(normalized.report, mode, recorder.usage, toolsDeclared);
    await recorder.finish();
  };
  return { kind: 'stream', frames: toFrames(normalized.chunks, recorder, telemetry, includeUsage, finish), headers };
}

/** `prompt` when the tools went into the prompt; otherwise what the normalizer saw. */
function answerMode(report: NormalizeReport, call: UpstreamCall): ResponseMode {
  if (report.mode === 'none') return 'none';
  return call.promptMode ? 'prompt' : report.mode;
}

async function* toFrames(
  chunks: AsyncIterable<ChatChunk>,
  recorder: StreamAnswerRecorder,
  telemetry: RequestTelemetry,
  includeUsage: boolean,
  onEnd: () => Promise<void>,
): AsyncGenerator<string> {
  for await (const chunk of chunks) {
    recorder.observe(chunk);
    if (chunk.choices.length > 0) telemetry.firstToken();
    // Usage goes to the client only when it asked (stream_options.include_usage); the gateway
    // always asks upstream for it, for its own token and cost metrics.
    if (!includeUsage) {
      if (chunk.choices.length === 0) continue;
      if ('usage' in chunk) delete chunk.usage;
    }
    yield sseData(JSON.stringify(chunk));
  }
  await onEnd();
  yield sseData('[DONE]');
}

function pickForwardHeaders(
  headers: Record<string, string | string[] | undefined>,
  allowed: ReadonlySet<string>,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of allowed) {
    const value = headers[name];
    if (typeof value === 'string') out[name] = value;
  }
  return out;
}

export function errorFrame(error: GatewayError): string {
  return sseData(JSON.stringify(error.toBody()));
}

export type { ChatRequest };
