import type { AbortSignalLike } from '../client-abort.js';
import type { ResolvedModel } from '../routing/router.js';
import type { FailureRow } from '../resilience/failures.js';
import type { TracingSettings } from './settings.js';

// The tracer as the rest of the gateway sees it: index.ts (which loads the SDK on demand) and the
// SDK side (sdk.ts, spans.ts) both depend on these shapes, never on each other.

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

/**
 * What a trace reads of the request it belongs to: the repairs made so far and the re-asks sent.
 * The pipeline's RequestInfo is one; tracing names only what it reads, so it imports nothing above it.
 */
export interface TracedRequest {
  readonly repairs: ReadonlyArray<{ readonly target: 'messages' | 'input'; readonly after: readonly unknown[] }>;
  readonly reasksSent: number;
}
