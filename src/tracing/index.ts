import type { Logger } from 'pino';
import type { TracingConfig } from '../config/schema.js';
import type { ProviderCallContext } from '../providers/types.js';
import type { ResolvedModel } from '../routing/router.js';
import { maskUrl } from '../config/secrets.js';
import { resolveTracing } from './settings.js';
import type { AttemptTrace, RequestTrace, TracedRequest, Tracing } from './types.js';

// OpenTelemetry traces, as the rest of the gateway sees them. This module imports nothing from
// @opentelemetry: with tracing off (the default) the SDK is never loaded, no hook is registered and
// the pipeline's one call per upstream attempt (traceAttempt) is a WeakMap miss. With tracing on,
// startTracing() loads ./sdk.js with a dynamic import. test/tracing/index.test.ts fails if any module
// the app loads imports @opentelemetry statically.

let sdkLoaded = false;

/** True once the OpenTelemetry SDK was loaded in this process (tests). */
export function tracingLoaded(): boolean {
  return sdkLoaded;
}

/** Resolves the settings and, when tracing is on, loads the SDK. Undefined when off. */
export async function startTracing(config: TracingConfig, log: Logger, redact: (text: string) => string, env: NodeJS.ProcessEnv = process.env): Promise<Tracing | undefined> {
  const { settings, warnings } = resolveTracing(config, env);
  for (const warning of warnings) log.warn(warning);
  if (!settings) return undefined;
  const { createTracing } = await import('./sdk.js');
  sdkLoaded = true;
  const tracing = await createTracing(settings, log, redact);
  log.info(
    { tracing: { endpoint: maskUrl(settings.url), protocol: settings.protocol, serviceName: settings.serviceName, sampler: settings.sampler, captureContent: settings.captureContent } },
    'tracing on: OTLP spans exported (docs/tracing.md)',
  );
  return tracing;
}

// The pipeline reaches a request's trace through its RequestInfo (the one per-request object
// every upstream call already carries; a TracedRequest here), without a field on it.
const traces = new WeakMap<TracedRequest, RequestTrace>();

export function linkRequestTrace(info: TracedRequest, trace: RequestTrace): void {
  traces.set(info, trace);
}

/**
 * The upstream caller's hook, once per attempt: starts its CLIENT span and puts its `traceparent` on
 * the call context (the adapters send it upstream). Undefined, and nothing done, when not traced.
 */
export function traceAttempt(info: TracedRequest, target: ResolvedModel, context: ProviderCallContext, attempt: number): AttemptTrace | undefined {
  const trace = traces.get(info);
  if (!trace) return undefined;
  const repaired = info.repairs.at(-1);
  const reask = info.reasksSent;
  const span = trace.attempt({ target, attempt, signal: context.signal, ...(repaired ? { repaired: { target: repaired.target, items: repaired.after } } : {}), ...(reask > 0 ? { reask } : {}) });
  context.traceHeaders = span.headers;
  return span;
}
