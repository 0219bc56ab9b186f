import type { Logger } from 'pino';
import type { AbortSignalLike } from '../client-abort.js';
import type { TracingConfig } from '../config/schema.js';
import type { RequestInfo } from '../pipeline/request-info.js';
import type { ProviderCallContext } from '../providers/types.js';
import type { FailureRow } from '../resilience/failures.js';
import type { ResolvedModel } from '../routing/router.js';
import { maskUrl } from '../secrets.js';
import { resolveTracing, type TracingSettings } from './settings.js';

// OpenTelemetry traces, as the rest of the gateway sees them. This module imports nothing from
// @opentelemetry: with tracing off (the default) the SDK is never loaded, no hook is registered and
// the pipeline's one call per upstream attempt (traceAttempt) is a WeakMap miss. With tracing on,
// startTracing() loads ./sdk.js with a dynamic import. test/tracing/index.test.ts fails if any module
// the app loads imports @opentelemetry statically.

/** The tracer of one running gateway. */
export interface Tracing {
  readonly settings: TracingSettings;
  /** Starts the SERVER span of an HTTP request, as a child of the client's `traceparent` when it sent one. */
  startRequest(start: RequestStart): RequestTrace;
  /** Exports what is buffered and stops (app close). */
  shutdown(): Promise<void>;
}

export interface RequestStart {
  method: string;
  /** The matched route pattern (`/v1/responses/:id`), when a route matched. */
  route?: string;
  path: string;
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
}

/** What the request's end tells its SERVER span (read from the request's RequestInfo). */
export interface RequestFacts {
  status: number;
  clientAborted: boolean;
  model?: string;
  provider?: string;
  stream?: boolean;
  /** One entry per repair: kind, and the message index when known. */
  repairs: ReadonlyArray<{ kind: string; index?: number; detail?: string }>;
  toolCallSource?: string;
  llmCalls?: number;
  error?: string;
  keyName?: string;
  taskId?: string;
  /** Kinds of tool-contract violations of the request's answers (distinct), and the re-asks sent. */
  contractViolations?: string[];
  contractReasks?: number;
}

export interface RequestTrace {
  /** trace_id / span_id / trace_flags for the request's log lines. */
  readonly logFields: Readonly<Record<string, string>>;
  /** Starts the CLIENT span of one upstream attempt. */
  attempt(start: AttemptStart): AttemptTrace;
  /** The request body, for content capture (when on) and the task id. */
  body(body: unknown): void;
  end(facts: RequestFacts): void;
}

export interface AttemptStart {
  target: ResolvedModel;
  /** 1-based attempt on this target. */
  attempt: number;
  /** The request's abort signal (a stream cut by the client is not the upstream's failure). */
  signal: AbortSignalLike;
  /** The history after toolgate's repairs, when it repaired any (content capture shows what went upstream). */
  repaired?: { target: 'messages' | 'input'; items: readonly unknown[] };
  /** The attempt is the n-th re-ask after a tool-contract violation. */
  reask?: number;
}

export interface AttemptTrace {
  /** `traceparent` (and `tracestate`) naming this CLIENT span, for the upstream request. */
  readonly headers: Readonly<Record<string, string>>;
  /** The attempt's answer: a JSON answer ends the span now, a stream when it ends. Returns what to hand on. */
  answered<T>(result: T): T;
  failed(error: unknown, row: FailureRow): void;
}

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
// every upstream call already carries), without a field on it.
const traces = new WeakMap<RequestInfo, RequestTrace>();

export function linkRequestTrace(info: RequestInfo, trace: RequestTrace): void {
  traces.set(info, trace);
}

/**
 * The upstream caller's hook, once per attempt: starts its CLIENT span and puts its `traceparent` on
 * the call context (the adapters send it upstream). Undefined, and nothing done, when not traced.
 */
export function traceAttempt(info: RequestInfo, target: ResolvedModel, context: ProviderCallContext, attempt: number): AttemptTrace | undefined {
  const trace = traces.get(info);
  if (!trace) return undefined;
  const repaired = info.repairs.at(-1);
  const reask = info.reasksSent;
  const span = trace.attempt({ target, attempt, signal: context.signal, ...(repaired ? { repaired: { target: repaired.target, items: repaired.after } } : {}), ...(reask > 0 ? { reask } : {}) });
  context.traceHeaders = span.headers;
  return span;
}
