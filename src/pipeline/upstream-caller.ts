import { errors, GatewayError } from '../errors.js';
import type { ReasoningRestorer } from './reasoning-support.js';
import type { Gateway } from './gateway.js';
import type { LlmCallOutcome } from '../metrics/index.js';
import { requiresKey } from '../providers/registry.js';
import type { ProviderCallContext } from '../providers/types.js';
import { asProviderFailure, backoffMs, classifyFailure, sleep, type TargetPermit } from '../resilience/index.js';
import type { ResolvedModel } from '../routing/router.js';
import { traceAttempt } from '../tracing/index.js';
import type { AttemptNote, RequestInfo } from './request-info.js';
import { withEndHooks, type EndHooks } from './stream-end.js';
import type { RequestTelemetry } from './telemetry.js';

// The one way to reach an upstream, for chat, the Responses bridge (through chat) and native
// Responses alike. Three small parts:
//   callWithFallbacks — the requested model, then its configured fallbacks in order;
//   attempts          — one body on one target: circuit breakers, retries with jittered backoff;
//   settledOnEnd      — a stream's call is settled (metrics, breaker) when the stream ends.
// What a failure allows comes from the one table (src/resilience/failures.ts). Upstream error
// messages are scrubbed of configured secrets before anything reaches the client.

/** What one request brings to its upstream calls. */
export interface CallScope {
  gateway: Gateway;
  /** The context of the requested target; each target gets its own `upstreamModel`. */
  context: ProviderCallContext;
  telemetry: RequestTelemetry;
  info: RequestInfo;
  /** Puts back reasoning the client dropped, for a target that needs it (repair-step.ts); absent when the ledger had none. */
  restoreReasoning?: ReasoningRestorer;
  /** The client sent legacy `functions`: answers go back as `function_call`. */
  legacyFunctions?: boolean;
}

/** Records one attempt's outcome (llm_calls, upstream seconds). */
export type Settle = (outcome: LlmCallOutcome) => void;

/** Thrown by one target when the request should go on to the next one (the cause was settled as `fallback`). */
class FallBack extends Error {
  constructor(readonly reason: unknown) {
    super('fall back');
  }
}

/** One target's call: `canFallBack` says whether a later target of the chain could still take over. */
export type RunTarget<T> = (candidate: ResolvedModel, context: ProviderCallContext, canFallBack: () => boolean) => Promise<T>;

const ACCEPTS_ALL = (): boolean => true;
const CANNOT_FALL_BACK = (): boolean => false;

/**
 * Runs `run` on the target, then on each usable fallback while the failure allows one; the answer
 * of the first target that gives one. `accepts` narrows the chain to targets able to serve this kind
 * of call (native Responses).
 */
export function callChain<T>(scope: CallScope, target: ResolvedModel, run: RunTarget<T>, accepts: (candidate: ResolvedModel) => boolean = ACCEPTS_ALL): Promise<T> {
  try {
    const fallbacks = fallbacksOf(target, scope, accepts);
    // The usual case, no fallback: the target's own call, without a promise and an async frame
    // of this layer (nothing to catch: no FallBack is thrown where canFallBack() is false).
    if (fallbacks.length === 0) return run(target, { ...scope.context, upstreamModel: target.upstreamModel }, CANNOT_FALL_BACK);
    return walkChain([target, ...fallbacks], scope, run);
  } catch (error) {
    return Promise.reject(error);
  }
}

/** `callChain`, also naming the target that answered (the requested one or a fallback). */
export async function callWithFallbacks<T>(
  scope: CallScope,
  target: ResolvedModel,
  run: RunTarget<T>,
  accepts: (candidate: ResolvedModel) => boolean = ACCEPTS_ALL,
): Promise<{ result: T; target: ResolvedModel }> {
  let served = target;
  // A target that answers ends the chain: the last one run is the one that answered.
  const result = await callChain(scope, target, (candidate, context, canFallBack) => {
    served = candidate;
    return run(candidate, context, canFallBack);
  }, accepts);
  return { result, target: served };
}

async function walkChain<T>(chain: ResolvedModel[], scope: CallScope, run: RunTarget<T>): Promise<T> {
  const { gateway, context, info } = scope;
  const usable = (candidate: ResolvedModel): boolean => isUsable(candidate, gateway);
  let lastError: unknown;
  for (let index = 0; index < chain.length; index++) {
    const candidate = chain[index];
    const name = candidate.provider.settings.name;
    if (index > 0 && !usable(candidate)) {
      context.log.warn({ fallback: candidate.requested }, 'fallback skipped: provider key missing or circuit open');
      continue;
    }
    const canFallBack = (): boolean => chain.slice(index + 1).some(usable);
    try {
      const result = await run(candidate, { ...context, upstreamModel: candidate.upstreamModel }, canFallBack);
      if (index > 0) info.routed(name, candidate.upstreamModel, true);
      return result;
    } catch (error) {
      if (!(error instanceof FallBack)) throw error;
      lastError = error.reason;
      context.log.warn({ model: candidate.requested, provider: name, error: messageOf(error.reason) }, 'upstream failed: trying the next fallback');
    }
  }
  throw lastError ?? errors.internal();
}

/** Whether a call to `candidate` could go out now: its provider key is there and no breaker refuses it. */
export function isUsable(candidate: ResolvedModel, gateway: Gateway): boolean {
  return (
    (!requiresKey(candidate.provider.settings) || Boolean(candidate.provider.settings.apiKey)) &&
    gateway.resilience.gate(candidate.provider.settings.name, candidate.upstreamModel).canAttempt()
  );
}

/** The target's configured fallbacks that resolve, are not the target itself, can serve the call and the client's key may use. */
export function fallbacksOf(target: ResolvedModel, scope: Pick<CallScope, 'gateway' | 'info' | 'context'>, accepts: (candidate: ResolvedModel) => boolean): ResolvedModel[] {
  if (target.fallbacks.length === 0) return [];
  const { gateway, info, context } = scope;
  const key = info.keyName !== undefined ? gateway.auth.keys.byName(info.keyName) : undefined;
  const seen = new Set([`${target.provider.settings.name}/${target.upstreamModel}`]);
  const out: ResolvedModel[] = [];
  for (const name of target.fallbacks) {
    let resolved: ResolvedModel;
    try {
      resolved = gateway.router.resolve(name);
    } catch {
      context.log.warn({ fallback: name }, 'configured fallback does not resolve to a model; skipped');
      continue;
    }
    const id = `${resolved.provider.settings.name}/${resolved.upstreamModel}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (key && !key.allows(resolved)) {
      context.log.info({ fallback: name, keyName: key.name }, 'fallback skipped: not allowed for this gateway key');
      continue;
    }
    if (!accepts(resolved)) {
      context.log.info({ fallback: name }, 'fallback skipped: its provider cannot serve this endpoint natively');
      continue;
    }
    out.push(resolved);
  }
  return out;
}

export interface AttemptOptions<T> {
  scope: CallScope;
  target: ResolvedModel;
  context: ProviderCallContext;
  canFallBack: () => boolean;
  /** One call upstream; settles itself on success (streams: when they end). */
  send: (permit: TargetPermit, settle: Settle) => Promise<T>;
  /** A failure the caller handles itself (settled as `fallback`, then rethrown). */
  handledByCaller?: (error: unknown) => boolean;
}

/** One body on one target, attempted up to the provider's policy.maxAttempts times. */
export async function attempts<T>(options: AttemptOptions<T>): Promise<T> {
  const { scope, target, context, canFallBack, send } = options;
  const { gateway, telemetry, info } = scope;
  const provider = target.provider.settings.name;
  const gate = gateway.resilience.gate(provider, target.upstreamModel);
  const policy = gateway.resilience.policy(provider);
  for (let attempt = 1; ; attempt++) {
    const permit = gate.acquire();
    if (!permit) {
      const open = errors.circuitOpen(provider, gate.retryAfterSeconds(), gate.openScope() === 'model' ? target.upstreamModel : undefined);
      throw canFallBack() ? new FallBack(open) : open;
    }
    const started = performance.now();
    let failed: unknown;
    const settle: Settle = (outcome) => {
      const seconds = (performance.now() - started) / 1000;
      telemetry.llmCall(target, outcome, seconds);
      if (info.journal) info.attempted(attemptNote(target, attempt, outcome, failed, { startMs: info.elapsedMs() - seconds * 1000, durationMs: seconds * 1000 }));
    };
    const traced = traceAttempt(info, target, context, attempt); // a CLIENT span when tracing is on
    try {
      const result = await send(permit, settle);
      return traced ? traced.answered(result) : result;
    } catch (caught) {
      const error = asProviderFailure(redacted(caught, gateway), provider);
      failed = error;
      const failure = classifyFailure(error, context.signal);
      traced?.failed(error, failure.row);
      permit.report(failure.breaker, failure.breakerScope);
      if (failure.row === 'client_aborted') {
        settle('aborted');
        throw error;
      }
      if (options.handledByCaller?.(error)) {
        settle('fallback');
        throw error;
      }
      const delay = failure.retryable ? backoffMs(attempt, policy, error, gateway.resilience.random) : undefined;
      if (delay !== undefined) {
        settle('retried');
        context.log.info({ provider, attempt, delayMs: delay, error: messageOf(error) }, 'upstream call failed: retrying');
        await sleep(delay, context.signal);
        if (context.signal.aborted) throw error;
        continue;
      }
      if (failure.fallbackable && canFallBack()) {
        settle('fallback');
        throw new FallBack(error);
      }
      settle(failure.outcome);
      throw error;
    }
  }
}

/** Settles a stream's call when it ends: success only if it completed; its error is scrubbed. */
export function settledOnEnd<T>(items: AsyncIterable<T>, permit: TargetPermit, settle: Settle, scope: CallScope): AsyncIterableIterator<T> {
  // A hand-written iterator (stream-end.ts), not a generator layer per stream.
  return withEndHooks(items, new SettleOnEnd(permit, settle, scope));
}

// The hooks as one object, not four closures and their scope: a stream holds them until it ends.
class SettleOnEnd implements EndHooks {
  constructor(
    private readonly permit: TargetPermit,
    private readonly settle: Settle,
    private readonly scope: CallScope,
  ) {}

  completed(): void {
    this.settle('success');
    this.permit.report('success');
  }

  failed(error: unknown): unknown {
    // Classified once: the outcome and the breaker's verdict come from the same row.
    const failure = classifyFailure(error, this.scope.context.signal);
    this.settle(failure.outcome);
    this.permit.report(failure.breaker, failure.breakerScope);
    return redacted(error, this.scope.gateway);
  }

  stopped(): void {
    this.settle('aborted');
    this.permit.report('neutral');
  }
}

/** Upstream messages reach the client (JSON error or terminal SSE event): keys they quote are scrubbed. */
export function redacted(error: unknown, gateway: Gateway): unknown {
  if (error instanceof GatewayError) error.message = gateway.auth.redact(error.message);
  return error;
}

/** One attempt for the request journal: the failure's status and kind, its (already scrubbed) message. */
function attemptNote(target: ResolvedModel, attempt: number, outcome: LlmCallOutcome, error: unknown, timing: { startMs: number; durationMs: number }): AttemptNote {
  const round = (ms: number): number => Math.round(ms * 10) / 10;
  return {
    provider: target.provider.settings.name,
    model: target.upstreamModel,
    attempt,
    outcome,
    ...(error instanceof GatewayError ? { status: error.status, errorKind: error.kind ?? error.code ?? undefined } : {}),
    ...(error === undefined ? {} : { error: messageOf(error).slice(0, 500) }),
    startMs: round(Math.max(0, timing.startMs)),
    durationMs: round(timing.durationMs),
  };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
