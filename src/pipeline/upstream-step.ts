import { LRUCache } from 'lru-cache';
import type { ChatChunk, ChatCompletion, ChatRequest, ToolDefinition } from '../api/chat-types.js';
import { GatewayError } from '../errors.js';
import type { Gateway } from '../gateway.js';
import type { ProviderCallContext } from '../providers/types.js';
import { declaredToolsOf } from '../repair/index.js';
import type { ResolvedModel } from '../routing/router.js';
import { createNameCodec } from '../toolcalls/name-encoding.js';
import { createNameResolver } from '../toolcalls/names.js';
import type { NormalizeContext } from '../toolcalls/normalize.js';
import { toPromptMode } from '../toolcalls/prompt-mode.js';
import { toUpstreamId } from '../toolcalls/ids.js';
import type { RequestInfo } from './request-info.js';
import type { RequestTelemetry } from './telemetry.js';
import type { LlmCallOutcome } from '../metrics/index.js';
import { rewriteToolCallIds, rewriteToolNames } from './tool-names.js';

// Prepares the repaired request for one provider (tool names and ids it accepts, prompt mode
// for models without native tools) and makes the call. An upstream that refuses `tools` is
// retried once in prompt mode, and the model is served in prompt mode from then on.

export type UpstreamCall = (
  | { kind: 'json'; completion: ChatCompletion }
  | { kind: 'stream'; chunks: AsyncIterable<ChatChunk> }
) & { normalizeContext: NormalizeContext; promptMode: boolean };

const TOOLS_REFUSED = /(not supported|unsupported|does not support|not allowed|unknown|unrecognized|invalid).{0,80}\b(tools|tool_choice|function calling|tool calling)\b|\b(tools|tool_choice)\b.{0,80}(not supported|unsupported|not allowed)/i;

type NameResolverFor = ReturnType<typeof createNameResolver>;
const resolvers = new LRUCache<string, NameResolverFor>({ max: 1000 });

function resolverFor(names: string[], aliases: Record<string, string>): NameResolverFor {
  const key = names.join('\u0000');
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = createNameResolver(names, aliases);
    resolvers.set(key, resolver);
  }
  return resolver;
}

export async function callUpstream(
  request: ChatRequest,
  target: ResolvedModel,
  context: ProviderCallContext,
  gateway: Gateway,
  telemetry: RequestTelemetry,
  info: RequestInfo,
): Promise<UpstreamCall> {
  const provider = target.provider;
  const capabilities = provider.capabilities(target.upstreamModel);
  const tools: ReadonlyMap<string, ToolDefinition> = request.tools?.length ? declaredToolsOf(request) : new Map();
  const names = [...tools.keys()];
  const codec = createNameCodec(names, capabilities.toolNameRule);
  const resolver = resolverFor(names, gateway.loaded.config.toolAliases);
  const normalizeContext: NormalizeContext = {
    tools,
    resolveName: (called: string) => resolver(called)?.name ?? null,
    resolveNameDetailed: resolver,
    codec,
    textParsing: gateway.loaded.config.repair.textToolCalls,
  };

  let upstreamRequest = codec.changed ? rewriteToolNames(request, codec.encode) : request;
  const idPattern = capabilities.toolCallIdPattern;
  if (idPattern) upstreamRequest = rewriteToolCallIds(upstreamRequest, (id) => toUpstreamId(id, idPattern));
  if (upstreamRequest.stream) upstreamRequest = { ...upstreamRequest, stream_options: { ...upstreamRequest.stream_options, include_usage: true } };

  const modelKey = `${provider.settings.name}/${target.upstreamModel}`;
  const hasTools = names.length > 0;
  let promptMode = hasTools && (target.toolCalling === 'prompt' || !capabilities.nativeTools || gateway.promptModeModels.has(modelKey));
  try {
    return { ...(await send(promptMode ? toPromptMode(upstreamRequest) : upstreamRequest)), normalizeContext, promptMode };
  } catch (error) {
    if (promptMode || !hasTools || !(error instanceof GatewayError) || error.status !== 400 || !TOOLS_REFUSED.test(error.message)) throw error;
    context.log.warn({ model: modelKey }, 'upstream refused native tools: retrying in prompt mode and remembering it');
    gateway.promptModeModels.add(modelKey);
    promptMode = true;
    return { ...(await send(toPromptMode(upstreamRequest))), normalizeContext, promptMode };
  }

  async function send(body: ChatRequest): Promise<{ kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; chunks: AsyncIterable<ChatChunk> }> {
    const started = performance.now();
    const settle = (outcome: LlmCallOutcome): void => {
      info.upstreamSeconds += (performance.now() - started) / 1000;
      telemetry.llmCall(outcome);
    };
    try {
      if (body.stream) return { kind: 'stream', chunks: settledOnEnd(await provider.stream(body, context), settle, context.signal) };
      const completion = await provider.complete(body, context);
      settle('success');
      return { kind: 'json', completion };
    } catch (error) {
      const refusedTools = !promptMode && hasTools && error instanceof GatewayError && error.status === 400 && TOOLS_REFUSED.test(error.message);
      settle(refusedTools ? 'fallback' : outcomeOf(error, context.signal));
      throw error;
    }
  }
}

/** A stream's call is settled when it ends: success only if it completed. */
async function* settledOnEnd(
  chunks: AsyncIterable<ChatChunk>,
  settle: (outcome: LlmCallOutcome) => void,
  signal: AbortSignal,
): AsyncGenerator<ChatChunk> {
  let settled = false;
  try {
    yield* chunks;
    settled = true;
    settle('success');
  } catch (error) {
    settled = true;
    settle(outcomeOf(error, signal));
    throw error;
  } finally {
    if (!settled) settle('aborted');
  }
}

function outcomeOf(error: unknown, signal: AbortSignal): LlmCallOutcome {
  if (signal.aborted) return 'aborted';
  if (!(error instanceof GatewayError)) return 'invalid_response';
  if (error.status === 504) return 'timeout';
  if (error.status === 429) return 'rate_limited';
  if (error.code === 'upstream_unreachable') return 'connect_error';
  if (error.code === 'upstream_bad_response') return 'invalid_response';
  return error.status >= 500 ? 'error_5xx' : 'error_4xx';
}
