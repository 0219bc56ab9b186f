import type { ChatChunk, ChatCompletion, ChatRequest, ToolDefinition } from '../api/chat-types.js';
import { batchesOf } from '../providers/chunk-batches.js';
import type { ProviderCallContext } from '../providers/types.js';
import { declaredToolsOnce } from '../repair/index.js';
import type { ResolvedModel } from '../routing/router.js';
import type { NormalizeContext } from '../toolcalls/normalize.js';
import { toPromptMode } from '../toolcalls/prompt-mode.js';
import { toUpstreamId } from '../toolcalls/ids.js';
import { rewriteToolCallIds, rewriteToolNames } from './tool-names.js';
import { saysNoToolSupport } from './tool-support.js';
import { attempts, callWithFallbacks, settledOnEnd, type CallScope } from './upstream-caller.js';

// The chat side of the upstream call: each target of the fallback chain is prepared for its own
// provider (tool names and ids it accepts, prompt mode for models without native tools), then
// goes through the one upstream caller. An upstream that says the model has no tool support is
// retried once in prompt mode, and the model is served in prompt mode for a while
// (tool-support.ts); any other 400 about tools is the request's own and goes back to the client.

type Sent = { kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; batches: AsyncIterable<ChatChunk[]> };

export type UpstreamCall = Sent & {
  normalizeContext: NormalizeContext;
  promptMode: boolean;
  /** The target that answered: the requested one or a fallback. */
  target: ResolvedModel;
};

export async function callUpstream(request: ChatRequest, target: ResolvedModel, scope: CallScope): Promise<UpstreamCall> {
  // The declared tools are the same for every target in the chain: read them once.
  const tools: ReadonlyMap<string, ToolDefinition> = request.tools?.length ? declaredToolsOnce(request) : new Map();
  // callTarget names the target it was given, which is the one callWithFallbacks reports as served.
  const { result } = await callWithFallbacks(scope, target, (candidate, context, canFallBack) =>
    callTarget({ request, tools, target: candidate, context, canFallBack }, scope),
  );
  return result;
}

/** One target of the chain, as callWithFallbacks hands it over. */
interface TargetInput {
  request: ChatRequest;
  tools: ReadonlyMap<string, ToolDefinition>;
  target: ResolvedModel;
  context: ProviderCallContext;
  canFallBack: () => boolean;
}

async function callTarget(input: TargetInput, scope: CallScope): Promise<UpstreamCall> {
  const { request, tools, target, context, canFallBack } = input;
  const { gateway } = scope;
  const provider = target.provider;
  const capabilities = provider.capabilities(target.upstreamModel);
  const names = [...tools.keys()];
  const codec = gateway.upstream.names.codec(names, capabilities.toolNameRule);
  const resolver = gateway.upstream.names.resolver(names);
  const normalizeContext: NormalizeContext = {
    tools,
    resolveName: (called: string) => resolver(called)?.name ?? null,
    resolveNameDetailed: resolver,
    codec,
    textParsing: gateway.loaded.config.repair.textToolCalls,
    reasoning: target.config?.reasoning ?? 'content',
  };

  let upstreamRequest = codec.changed ? rewriteToolNames(request, codec.encode) : request;
  const idPattern = capabilities.toolCallIdPattern;
  if (idPattern) upstreamRequest = rewriteToolCallIds(upstreamRequest, (id) => toUpstreamId(id, idPattern));
  if (upstreamRequest.stream) upstreamRequest = { ...upstreamRequest, stream_options: { ...upstreamRequest.stream_options, include_usage: true } };

  const modelKey = `${provider.settings.name}/${target.upstreamModel}`;
  const toolSupport = gateway.upstream.toolSupport;
  const hasTools = names.length > 0;
  let promptMode = hasTools && (target.toolCalling === 'prompt' || !capabilities.nativeTools || toolSupport.inPromptMode(modelKey));
  const refusesTools = (error: unknown): boolean => !promptMode && hasTools && saysNoToolSupport(error);

  const send = (body: ChatRequest): Promise<Sent> =>
    attempts<Sent>({
      scope,
      target,
      context,
      canFallBack,
      handledByCaller: refusesTools,
      send: async (permit, settle) => {
        if (body.stream) {
          // Handed back once the upstream accepted it: from here on nothing is retried.
          const chunks = await provider.stream(body, context);
          return { kind: 'stream', batches: settledOnEnd(batchesOf(chunks), permit, settle, scope) };
        }
        const completion = await provider.complete(body, context);
        settle('success');
        permit.report('success');
        return { kind: 'json', completion };
      },
    });

  try {
    return answered(await send(promptMode ? toPromptMode(upstreamRequest) : upstreamRequest), normalizeContext, promptMode, target);
  } catch (error) {
    if (!refusesTools(error)) throw error;
    const remembered = toolSupport.downgrade(modelKey);
    context.log.warn({ model: modelKey, remembered, ttlMs: toolSupport.settings.ttlMs }, 'upstream says the model has no tool support: retrying in prompt mode');
    promptMode = true;
    return answered(await send(toPromptMode(upstreamRequest)), normalizeContext, promptMode, target);
  }
}

/**
 * The call as the pipeline reads it, built key by key: on Node 20 a key added to a spread copy
 * (`{ ...sent, promptMode }`) takes V8's slow path, ~1 µs a key (Node 24: ~0.03 µs).
 */
function answered(sent: Sent, normalizeContext: NormalizeContext, promptMode: boolean, target: ResolvedModel): UpstreamCall {
  return sent.kind === 'json'
    ? { kind: 'json', completion: sent.completion, normalizeContext, promptMode, target }
    : { kind: 'stream', batches: sent.batches, normalizeContext, promptMode, target };
}
