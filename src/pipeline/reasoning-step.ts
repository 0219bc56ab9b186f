import type { ChatRequest } from '../api/chat-types.js';
import type { ResolvedModel } from '../routing/router.js';
import type { Gateway } from './gateway.js';
import { ANONYMOUS_SCOPE, scopeOf } from '../util/scope.js';
import { saysReasoningMissing, saysReasoningRejected, withoutReasoning, type ReasoningEcho } from './reasoning-support.js';
import type { CallScope } from './upstream-caller.js';

// The reasoning side of preparing one target of the call chain (upstream-step.ts): removed for a
// target that refuses it, restored from the ledger for one that needs it (a no-op for the
// requested target, already restored by the repair step), and learned from an upstream's 400.

/** The request as this target takes reasoning. */
export function reasoningFor(request: ChatRequest, target: ResolvedModel, scope: CallScope): ChatRequest {
  const echo = echoOfTarget(scope.gateway, target, scopeOf(scope.info.keyName));
  if (echo === 'rejected') return withoutReasoning(request);
  if (echo !== 'required' || scope.restoreReasoning === undefined) return request;
  const restored = scope.restoreReasoning(request);
  if (restored.findings.length > 0) {
    scope.gateway.metrics.repairs(restored.findings);
    scope.context.log.debug({ findings: restored.findings, model: target.upstreamModel }, 'reasoning restored for this target');
  }
  return restored.request;
}

/** What an upstream's 400 says about reasoning that toolgate can act on, or undefined. */
export function reasoningVerdict(error: unknown, request: ChatRequest, target: ResolvedModel, scope: CallScope): ReasoningEcho | undefined {
  const echo = echoOfTarget(scope.gateway, target, scopeOf(scope.info.keyName));
  if (echo !== 'required' && scope.restoreReasoning !== undefined && saysReasoningMissing(error, request)) return 'required';
  if (echo !== 'rejected' && saysReasoningRejected(error, request) && hasReasoning(request)) return 'rejected';
  return undefined;
}

/** After such a 400: the echo is learned, and the request to retry once, or undefined when a retry would send the same. */
export function retryForReasoning(error: unknown, request: ChatRequest, target: ResolvedModel, scope: CallScope): ChatRequest | undefined {
  const verdict = reasoningVerdict(error, request, target, scope);
  if (verdict === undefined) return undefined;
  const provider = target.provider.settings.name;
  // Learned for the gateway key whose request taught it, as prompt-mode downgrades are.
  scope.gateway.upstream.reasoningSupport.learn(`${provider}/${target.upstreamModel}`, verdict, scopeOf(scope.info.keyName));
  scope.context.log.warn({ model: `${provider}/${target.upstreamModel}`, reasoning: verdict }, 'upstream said how it takes reasoning: learned, retrying once');
  const retry = reasoningFor(request, target, scope);
  return retry === request ? undefined : retry;
}

/** Whether any message of the request carries reasoning_content. */
export function hasReasoning(request: ChatRequest): boolean {
  return withoutReasoning(request) !== request;
}

/** The echo of one target of a call chain, for the gateway key of `tenant`. */
export function echoOfTarget(gateway: Gateway, target: ResolvedModel, tenant: string = ANONYMOUS_SCOPE): ReasoningEcho | undefined {
  const provider = target.provider.settings;
  return gateway.upstream.reasoningSupport.echoOf(provider.type, `${provider.name}/${target.upstreamModel}`, target.upstreamModel, tenant);
}

/** Whether the model a request names resolves to a target that needs reasoning back (false when it resolves to none). */
export function targetNeedsReasoning(gateway: Gateway, model: string, tenant: string = ANONYMOUS_SCOPE): boolean {
  try {
    return echoOfTarget(gateway, gateway.router.resolve(model), tenant) === 'required';
  } catch {
    return false; // an unknown model is refused later, with its own error
  }
}
