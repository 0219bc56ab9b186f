import type { FastifyBaseLogger as Logger } from 'fastify';
import type { ChatChunk, Usage } from '../api/chat-types.js';
import type { AbortSignalLike } from '../client-abort.js';
import type { Finding } from '../repair/types.js';
import type { ModelRouter, ResolvedModel } from '../routing/router.js';
import type { Endpoint } from '../metrics/index.js';
import type { NormalizeReport } from '../toolcalls/normalize-shared.js';

// The request journal: what one request did, filled in along the pipeline through the named
// methods below (no step assigns its fields). Read once at the end by the access log line
// (logFields) and, when the inspector is on, by src/inspector/record.ts.

/** Where a repair pass worked: the chat messages, or the Responses input items. */
export type RepairTarget = 'messages' | 'input';

/** One set of repairs with the list before and after it (references; rendered only when inspected). */
export interface RepairNote {
  target: RepairTarget;
  findings: readonly Finding[];
  before: readonly unknown[];
  after: readonly unknown[];
}

/** One call upstream of the retry / fallback chain. */
export interface AttemptNote {
  provider: string;
  model: string;
  /** 1-based attempt on this target. */
  attempt: number;
  /** success, retried, fallback, aborted, or the failure's outcome label. */
  outcome: string;
  status?: number;
  errorKind?: string;
  error?: string;
  /** Milliseconds from the request's start to the attempt's start, and the attempt's duration. */
  startMs: number;
  durationMs: number;
}

/** An answer's tool calls, as the normalizer produced them, with the upstream text they came from. */
export interface AnswerNote {
  mode: string;
  usage?: Usage;
  report: NormalizeReport;
  /** The upstream's own text of choice 0 (before normalization), when kept. */
  upstreamText?: string;
  /** The text the client got, and the calls (choice 0). */
  clientText?: string;
  calls: ReadonlyArray<{ name: string; arguments: string }>;
  /** The reasoning the client got with choice 0 (reasoning_content), when any. */
  reasoning?: string;
}

/** One answer checked against the request's tool contract, and what came of it (docs/contract.md). */
export interface ContractNote {
  /** 0 for the first answer, then 1, 2, … for each re-ask's. */
  reask: number;
  provider: string;
  model: string;
  violations: ReadonlyArray<{ kind: string; message: string }>;
  /** complied, reask (asked again), error, pass (handed on as is), trimmed (extra calls dropped by policy). */
  outcome: 'complied' | 'reask' | 'error' | 'pass' | 'trimmed';
}

/** Longest upstream text kept per request for the text-call span (best effort, bounded). */
export const MAX_UPSTREAM_TEXT = 64 * 1024;

export class RequestInfo {
  readonly startedAt = Date.now();
  private readonly started = performance.now();
  private state: {
    model?: string;
    provider?: string;
    upstreamModel?: string;
    stream?: boolean;
    keyName?: string;
    usage?: Usage;
    repairsHeader?: string;
    warningsHeader?: string;
    toolMode?: string;
    error?: string;
    costUsd?: number;
    taskCalls?: number;
    ttfbMs?: number;
    fallback: boolean;
  } = { fallback: false };
  private calls = 0;
  private waited = 0;
  readonly repairs: RepairNote[] = [];
  readonly attempts: AttemptNote[] = [];
  /** Answers that broke the request's tool contract (a handful at most: maxReasks bounds them). */
  readonly contract: ContractNote[] = [];
  private answerNote: AnswerNote | undefined;
  private keptText: string | undefined;

  /**
   * `journal`: keep the notes only the inspector reads (attempts, the answer's text and calls).
   * Off when the inspector is off: the access log and metrics read none of them.
   */
  constructor(
    readonly endpoint: Endpoint,
    readonly journal = true,
  ) {}

  get keyName(): string | undefined {
    return this.state.keyName;
  }
  get usage(): Usage | undefined {
    return this.state.usage;
  }
  get error(): string | undefined {
    return this.state.error;
  }
  get llmCalls(): number {
    return this.calls;
  }
  /** Seconds spent waiting on upstreams (for the gateway-overhead metric). */
  get upstreamSeconds(): number {
    return this.waited;
  }
  get answer(): AnswerNote | undefined {
    return this.answerNote && this.keptText !== undefined ? { upstreamText: this.keptText, ...this.answerNote } : this.answerNote;
  }
  /** Everything else, read-only, for the inspector record. */
  get facts(): Readonly<RequestInfo['state']> {
    return this.state;
  }
  /** Milliseconds since the request started. */
  elapsedMs(): number {
    return Math.round((performance.now() - this.started) * 10) / 10;
  }

  /** The gateway key that authenticated the request (limits, budgets, fallbacks it may use, scope). */
  authenticated(keyName: string): void {
    this.state.keyName = keyName;
  }

  requested(model: string, stream: boolean): void {
    this.state.model = model;
    this.state.stream = stream;
  }

  /** The provider and upstream model that serve the request; `fallback` when it is not the requested one. */
  routed(provider: string, upstreamModel: string, fallback = false): void {
    this.state.provider = provider;
    this.state.upstreamModel = upstreamModel;
    if (fallback) this.state.fallback = true;
  }

  /** A repair step's result; the lists are kept by reference and rendered only if the inspector records it. */
  repaired(note: RepairNote): void {
    if (note.findings.length > 0) this.repairs.push(note);
  }

  /** The x-toolgate-repairs and x-toolgate-warnings values the client got. */
  repairHeaders(repairs: string | undefined, warnings?: string): void {
    if (repairs) this.state.repairsHeader = repairs;
    if (warnings) this.state.warningsHeader = warnings;
  }

  answered(note: AnswerNote): void {
    this.answerNote = note;
    this.state.toolMode = note.mode;
    this.state.usage = note.usage;
  }

  /** First content or tool-call delta of a stream (or the whole answer for JSON). */
  firstToken(): void {
    this.state.ttfbMs ??= this.elapsedMs();
  }

  /** One upstream call settled; `taskCalls` is the task's LLM-call count so far. */
  llmCall(seconds: number, taskCalls?: number): void {
    this.calls += 1;
    this.waited += seconds;
    if (taskCalls !== undefined) this.state.taskCalls = taskCalls;
  }

  /** The upstream's own choice-0 text of a stream (see UpstreamTextKeeper). */
  upstreamText(text: string): void {
    this.keptText = text;
  }

  attempted(note: AttemptNote): void {
    this.attempts.push(note);
  }

  /** Re-asks sent after tool-contract violations so far. */
  get reasksSent(): number {
    let sent = 0;
    for (const note of this.contract) if (note.outcome === 'reask') sent++;
    return sent;
  }

  /** An answer was checked against the tool contract and broke it (or was trimmed, or complied after a re-ask). */
  contractChecked(note: ContractNote): void {
    this.contract.push(note);
  }

  costed(usd: number): void {
    if (usd > 0) this.state.costUsd = (this.state.costUsd ?? 0) + usd;
  }

  failed(message: string): void {
    this.state.error = message;
  }

  /** The request's fields of the access log line. */
  logFields(): Record<string, unknown> {
    const s = this.state;
    return {
      ...(s.keyName ? { keyName: s.keyName } : {}),
      model: s.model,
      provider: s.provider,
      upstreamModel: s.upstreamModel,
      stream: s.stream,
      usage: s.usage,
      repairs: s.repairsHeader,
      toolMode: s.toolMode,
      llmCalls: this.calls,
      error: s.error,
    };
  }
}

export function newRequestInfo(endpoint: Endpoint, journal = true): RequestInfo {
  return new RequestInfo(endpoint, journal);
}

/**
 * Keeps (bounded) the upstream's own choice-0 text of a stream, batch by batch, for the inspector's
 * raw text span; `finish` hands it to the journal (also when the stream broke off).
 */
export class UpstreamTextKeeper {
  private text = '';

  constructor(private readonly info: RequestInfo) {}

  observe(chunks: readonly ChatChunk[]): void {
    for (const chunk of chunks) {
      if (this.text.length >= MAX_UPSTREAM_TEXT) return;
      const content = chunk.choices[0]?.index === 0 ? chunk.choices[0].delta.content : undefined;
      if (typeof content === 'string') this.text += content.slice(0, MAX_UPSTREAM_TEXT - this.text.length);
    }
  }

  finish(): void {
    this.info.upstreamText(this.text);
  }
}

/** What the pipeline needs from the HTTP request, for chat and Responses alike. */
export interface ChatCallInput {
  requestId: string;
  headers: Record<string, string | string[] | undefined>;
  signal: AbortSignalLike;
  log: Logger;
  info: RequestInfo;
  /** The body's model as the guards resolved it (once per request). */
  target?: ResolvedModel;
}

/** The request's model: the one resolved by the guards when it is the same name, else resolved now. */
export function targetFor(model: string, input: ChatCallInput, router: Pick<ModelRouter, 'resolve'>): ResolvedModel {
  return input.target?.requested === model ? input.target : router.resolve(model);
}
