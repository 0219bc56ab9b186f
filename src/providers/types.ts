import type { FastifyBaseLogger as Logger } from 'fastify';
import type { ChatChunk, ChatCompletion, ChatRequest } from '../api/chat-types.js';
import type { AbortSignalLike } from '../client-abort.js';
import type { CallLedger } from '../ledger/types.js';

/** One upstream server-sent event (the `event:` name when given, the joined `data:` lines). */
export interface SseEvent {
  event?: string;
  data: string;
}

export type ProviderType = 'openai' | 'openai-compatible' | 'gemini' | 'simulator';

export interface ProviderSettings {
  name: string;
  type: ProviderType;
  baseUrl: string;
  apiKey?: string;
  /** The env var the key comes from, named in errors when it is missing. */
  apiKeyEnv?: string;
  /** Time to the first upstream byte. */
  timeoutMs: number;
  /** Max gap between stream chunks. */
  streamIdleTimeoutMs: number;
  /** Pooled connections to the upstream origin; null = unbounded (one per concurrent request). */
  maxConnections?: number | null;
  /** Cap on one JSON answer body, in bytes (unset: the config default). */
  maxResponseBytes?: number;
  /** Cap on one incomplete stream event or line (unset: the config default). */
  maxEventBytes?: number;
  /** Cap on one stream's whole body (unset: the config default). */
  maxStreamBytes?: number;
  /** Extra static headers sent upstream (from config). */
  headers: Record<string, string>;
}

export interface ProviderCallContext {
  /** The model id sent upstream, unchanged (may contain '/' and ':'). */
  upstreamModel: string;
  /** Aborted when the client disconnects or the gateway gives up. */
  signal: AbortSignalLike;
  requestId: string;
  log: Logger;
  ledger: CallLedger;
  /** Client headers that the allowlist lets through. */
  forwardHeaders: Record<string, string>;
  /** W3C `traceparent`/`tracestate` of the current attempt's CLIENT span, set per attempt when tracing is on. */
  traceHeaders?: Readonly<Record<string, string>>;
}

/** Rules an upstream puts on tool names; names breaking them are encoded reversibly. */
export interface ToolNameRule {
  pattern: RegExp;
  maxLength: number;
}

export interface ProviderCapabilities {
  /** Upstream accepts OpenAI `tools` natively. */
  nativeTools: boolean;
  toolNameRule: ToolNameRule;
  /** Tool call ids must match this when history goes back (e.g. Mistral: 9 alphanumerics). */
  toolCallIdPattern?: RegExp;
  /**
   * `name-counter`: the model's chat template wants the history's call ids as
   * `functions.<name>:<n>`, n counting the conversation's calls from 0 (Kimi K2): toolgate gives
   * clients unique ids and writes this form again, from the history alone, on the way up.
   */
  toolCallIdStyle?: 'name-counter';
}

/**
 * One small interface every upstream implements; quirks stay inside the adapter.
 * `stream` resolves once the upstream accepted the request (status known), so errors before
 * the first byte become proper HTTP statuses; errors after that are thrown from the iterator.
 */
export interface ProviderAdapter {
  readonly settings: ProviderSettings;
  capabilities(upstreamModel: string): ProviderCapabilities;
  complete(request: ChatRequest, context: ProviderCallContext): Promise<ChatCompletion>;
  stream(request: ChatRequest, context: ProviderCallContext): Promise<AsyncIterable<ChatChunk>>;
  /** Present when the upstream speaks the OpenAI Responses API natively (passthrough after repair). */
  responses?: NativeResponses;
  /** The upstream ids this provider is known to serve (GET /v1/models/<provider>/<id>); absent: not known. */
  readonly models?: readonly string[];
  close?(): Promise<void>;
}

/** Native `POST {base}/responses`: bodies in OpenAI Responses shape, errors mapped to the catalogue. */
export interface NativeResponses {
  create(body: Record<string, unknown>, context: ProviderCallContext): Promise<Record<string, unknown>>;
  /** Resolves once the upstream accepted the request; yields its SSE events (`event:` + JSON data). */
  stream(body: Record<string, unknown>, context: ProviderCallContext): Promise<AsyncIterable<SseEvent>>;
  /** `POST {base}/responses/compact` (a `response.compaction` object). */
  compact?(body: Record<string, unknown>, context: ProviderCallContext): Promise<Record<string, unknown>>;
}
