import type { ChatChunk, ChatCompletion, ChatRequest, ToolDefinition } from '../api/chat-types.js';
import { batchesOf } from '../providers/chunk-batches.js';
import type { ProviderCallContext } from '../providers/types.js';
import { declaredToolsOnce } from '../repair/index.js';
import type { ResolvedModel } from '../routing/router.js';
import { scopeOf } from '../util/scope.js';
import type { WorkBudgets } from '../state/work-budgets.js';
import type { NormalizeContext } from '../toolcalls/normalize.js';
import type { NameResolverFunction } from '../toolcalls/names.js';
import { textCallsFor } from '../toolcalls/normalize-policy.js';
import { toPromptMode } from '../toolcalls/prompt-mode.js';
import { toUpstreamId } from '../toolcalls/ids.js';
import { nameCounterToolCallIds, rewriteToolCallIds, rewriteToolNames } from './tool-names.js';
import { saysNoToolSupport } from './tool-support.js';
import { rejectedContractField, withoutField, type ContractField } from '../contract/capabilities.js';
import { hasReasoning, reasoningFor, reasoningVerdict, retryForReasoning } from './reasoning-step.js';
import { attempts, callChain, settledOnEnd, type CallScope } from './upstream-caller.js';

// The chat side of the upstream call: each target of the fallback chain is prepared for its own
// provider (tool names and ids it accepts, prompt mode for models without native tools), then
// goes through the one upstream caller. An upstream that says the model has no tool support is
// retried once in prompt mode, and the model is served in prompt mode for a while
// (tool-support.ts); any other 400 about tools is the request's own and goes back to the client.

export type UpstreamCall = ({ kind: 'json'; completion: ChatCompletion } | { kind: 'stream'; batches: AsyncIterable<ChatChunk[]> }) & {
  normalizeContext: NormalizeContext;
  promptMode: boolean;
  /** The target that answered: the requested one or a fallback. */
  target: ResolvedModel;
};

// Not async, like callTarget: the usual call (one target, first attempt) goes through no layer that
// only passes a promise on (each was a promise, a microtask and a frame per request).
/** `budgets`: the request's tenant's (JSON repair in the answer spends them). */
export function callUpstream(request: ChatRequest, target: ResolvedModel, scope: CallScope, budgets: WorkBudgets): Promise<UpstreamCall> {
  try {
    // The declared tools are the same for every target in the chain: read them once.
    const tools: ReadonlyMap<string, ToolDefinition> = request.tools?.length ? declaredToolsOnce(request) : new Map();
    // callTarget names the target it was given: the one that answered.
    return callChain(scope, target, (candidate, context, canFallBack) => callTarget({ request, tools, target: candidate, context, canFallBack, budgets }, scope));
  } catch (error) {
    return Promise.reject(error);
  }
}

/**
 * The normalizer's context, kept for a stream's whole life. Built here, not in callTarget: closures
 * made there would share callTarget's scope, and with it keep the upstream request (and its renamed,
 * re-identified or prompt-mode copy of the whole history) until the stream ends.
 */
function normalizeContextOf(
  tools: ReadonlyMap<string, ToolDefinition>,
  resolver: NameResolverFunction,
  budgets: WorkBudgets,
  codec: NormalizeContext['codec'],
  textParsing: boolean,
  reasoning: NonNullable<NormalizeContext['reasoning']>,
  provider: string,
  legacyFunctions: boolean,
): NormalizeContext {
  return {
    tools,
    resolveName: (called: string) => resolver(called)?.name ?? null,
    resolveNameDetailed: resolver,
    repairBudget: budgets.repair,
    codec,
    textParsing,
    reasoning,
    provider,
    ...(legacyFunctions ? { legacyFunctions } : {}),
  };
}

/** One target of the chain, as callChain hands it over. */
interface TargetInput {
  request: ChatRequest;
  tools: ReadonlyMap<string, ToolDefinition>;
  target: ResolvedModel;
  context: ProviderCallContext;
  canFallBack: () => boolean;
  budgets: WorkBudgets;
}

function callTarget(input: TargetInput, scope: CallScope): Promise<UpstreamCall> {
  const { request, tools, target, context, canFallBack, budgets } = input;
  const { gateway } = scope;
  const provider = target.provider;
  const capabilities = provider.capabilities(target.upstreamModel);
  const names = [...tools.keys()];
  const codec = gateway.upstream.names.codec(names, capabilities.toolNameRule);
  const resolver = gateway.upstream.names.resolver(names);
  const config = gateway.loaded.config;
  const textCalls = (inPromptMode: boolean): boolean =>
    textCallsFor({
      enabled: config.repair.textToolCalls,
      model: target.config?.textCalls,
      provider: config.providers[provider.settings.name]?.textCalls,
      providerType: provider.settings.type,
      upstreamModel: target.upstreamModel,
      promptMode: inPromptMode,
      toolChoice: request.tool_choice,
      hasTools: tools.size > 0,
    });
  const contextFor = (inPromptMode: boolean): NormalizeContext =>
    normalizeContextOf(tools, resolver, budgets, codec, textCalls(inPromptMode), target.config?.reasoning ?? 'content', provider.settings.name, scope.legacyFunctions === true);

  // The request as this target wants it: names and ids it accepts, reasoning as it takes it.
  const prepare = (body: ChatRequest): ChatRequest => {
    let prepared = codec.changed ? rewriteToolNames(body, codec.encode) : body;
    const idPattern = capabilities.toolCallIdPattern;
    if (idPattern) prepared = rewriteToolCallIds(prepared, (id) => toUpstreamId(id, idPattern));
    if (capabilities.toolCallIdStyle === 'name-counter') prepared = nameCounterToolCallIds(prepared);
    if (prepared.stream) prepared = { ...prepared, stream_options: { ...prepared.stream_options, include_usage: true } };
    return prepared;
  };
  const modelKey = `${provider.settings.name}/${target.upstreamModel}`;
  // Contract fields this model rejected before are left out (the contract checks the answer for them).
  const contractCapabilities = gateway.upstream.contractCapabilities;
  const tenant = scopeOf(scope.info.keyName);
  let upstreamRequest = prepare(contractCapabilities.relaxed(modelKey, reasoningFor(request, target, scope), tenant));

  const toolSupport = gateway.upstream.toolSupport;
  const hasTools = names.length > 0;
  let promptMode = hasTools && (target.toolCalling === 'prompt' || !capabilities.nativeTools || toolSupport.inPromptMode(modelKey, tenant));
  const refusesTools = (error: unknown): boolean => !promptMode && hasTools && saysNoToolSupport(error, upstreamRequest);
  const rejectsField = (error: unknown): ContractField | undefined => (promptMode ? undefined : rejectedContractField(error, upstreamRequest));

  // The call as the pipeline reads it is built where the answer arrives: no layer above to add to it.
  const send = (body: ChatRequest, inPromptMode: boolean): Promise<UpstreamCall> =>
    attempts<UpstreamCall>({
      scope,
      target,
      context,
      canFallBack,
      // An upstream that says it wants the reasoning back, or refuses it: learned, then one retry.
      handledByCaller: (error) => refusesTools(error) || reasoningVerdict(error, request, target, scope) !== undefined || rejectsField(error) !== undefined,
      send: async (permit, settle) => {
        if (body.stream) {
          // Handed back once the upstream accepted it: from here on nothing is retried.
          const chunks = await provider.stream(body, context);
          return { kind: 'stream', batches: settledOnEnd(batchesOf(chunks), permit, settle, scope), normalizeContext: contextFor(inPromptMode), promptMode: inPromptMode, target };
        }
        const completion = await provider.complete(body, context);
        settle('success');
        permit.report('success');
        return { kind: 'json', completion, normalizeContext: contextFor(inPromptMode), promptMode: inPromptMode, target };
      },
    });

  // An upstream that rejects a contract field: learned, the call sent again without it (a second field likewise).
  const withoutRejected = (field: ContractField, more: number): Promise<UpstreamCall> => {
    contractCapabilities.learn(modelKey, field, tenant);
    context.log.warn({ model: modelKey, field }, 'upstream rejects a contract field: sent without it (the contract checks the answer)');
    upstreamRequest = withoutField(upstreamRequest, field);
    const sent = send(upstreamRequest, false);
    if (more === 0) return sent;
    return sent.catch((again: unknown) => {
      const next = rejectsField(again);
      if (next === undefined) throw again;
      return withoutRejected(next, more - 1);
    });
  };

  const first = send(promptMode ? toPromptMode(upstreamRequest) : upstreamRequest, promptMode);
  // Only a call with tools sent natively can be told the model has no tool support; only one with
  // reasoning in its history (or in the ledger) can be told something about reasoning.
  const reasoningMatters = scope.restoreReasoning !== undefined || hasReasoning(request);
  if ((promptMode || !hasTools) && !reasoningMatters) return first;
  return first.catch((error: unknown) => {
    const retry = reasoningMatters ? retryForReasoning(error, request, target, scope) : undefined;
    if (retry !== undefined) {
      upstreamRequest = prepare(retry);
      return send(promptMode ? toPromptMode(upstreamRequest) : upstreamRequest, promptMode);
    }
    if (!refusesTools(error)) {
      const field = rejectsField(error);
      if (field === undefined) throw error;
      return withoutRejected(field, 1);
    }
    const remembered = toolSupport.downgrade(modelKey, tenant);
    context.log.warn({ model: modelKey, remembered, ttlMs: toolSupport.settings.ttlMs }, 'upstream says the model has no tool support: retrying in prompt mode');
    promptMode = true;
    return send(toPromptMode(upstreamRequest), true);
  });
}
