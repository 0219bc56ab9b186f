import type { Dispatcher } from 'undici';
import { Pool, undiciErrors } from './undici-parts.js';
import { AnswerFailure, dispatchForText, type AnswerText } from './answer-text.js';
import { dispatchStream, type StreamAnswer } from './answer-stream.js';
import { ERROR_BODY_PREFIX_BYTES, readErrorText } from './upstream-body.js';
import { DEFAULT_MAX_RESPONSE_BYTES } from '../config/schema.js';
import { errors, GatewayError } from '../errors.js';
import type { AbortSignalLike } from '../client-abort.js';
import type { ProviderCallContext, ProviderSettings } from './types.js';

// Pooled HTTP to one upstream origin, with failures mapped to the error catalogue:
// connect failures → 502, no headers within timeoutMs → 504, a stalled body → 504 (stream idle).

/** A streamed answer: its status, its headers (for a status < 400 only content-type and content-length), its body's bytes. */
export type UpstreamResponse = StreamAnswer;

const HOP_BY_HOP = new Set([
  'connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'te', 'trailer',
  'transfer-encoding', 'upgrade', 'host', 'content-length', 'authorization', 'x-api-key', 'x-goog-api-key', 'cookie',
]);

export class UpstreamClient {
  private readonly pool: Pool;
  private readonly basePath: string;
  /** The configured headers, the key's and content-type, in that order (built at the first call: subclasses set up their key first). */
  private fixedHeaders: Record<string, string> | undefined;

  constructor(private readonly settings: ProviderSettings) {
    const url = new URL(settings.baseUrl);
    this.basePath = url.pathname.replace(/\/+$/, '');
    this.pool = new Pool(url.origin, {
      // Long LLM streams each hold a connection: a low cap would queue streams behind each other.
      connections: settings.maxConnections ?? null,
      pipelining: 1,
      keepAliveTimeout: 30_000,
      connect: { timeout: Math.min(settings.timeoutMs, 30_000) },
    });
  }

  /**
   * A request whose answer is streamed (answer-stream.ts: read straight off the pool, no body
   * stream). Resolves at the answer's status; failures before it come mapped, later ones reach
   * the body's reader unmapped (readSse maps them as a body's).
   */
  async post(
    path: string,
    body: string,
    headers: Record<string, string>,
    signal: AbortSignalLike,
  ): Promise<UpstreamResponse> {
    try {
      return await dispatchStream(this.pool, this.requestOptions(path, body, headers), signal);
    } catch (failure) {
      throw this.mapError(failure instanceof AnswerFailure ? failure.reason : failure, 'before-headers');
    }
  }

  /**
   * The same request, its answer read whole as text (answer-text.ts: no body stream). An answer of
   * status < 400 past the provider's maxResponseBytes is a 502; of an error status, the first
   * ERROR_BODY_PREFIX_BYTES are read. Failures come mapped: before the answer's status as post's,
   * after it as a body's.
   */
  postForText(path: string, body: string, headers: Record<string, string>, signal: AbortSignalLike): Promise<AnswerText> {
    // Not async itself: a suspended async function keeps its parameters, and the body text (a few KB
    // per request) would then live, and be promoted, until the answer came; its bytes are what is sent.
    let options: Dispatcher.DispatchOptions;
    try {
      options = this.requestOptions(path, body, headers);
    } catch (error) {
      return Promise.reject(error as Error);
    }
    return this.textOf(options, signal);
  }

  private async textOf(options: Dispatcher.DispatchOptions, signal: AbortSignalLike): Promise<AnswerText> {
    const maxBytes = this.settings.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    let answer: AnswerText;
    try {
      answer = await dispatchForText(this.pool, options, signal, { maxBytes, errorBytes: ERROR_BODY_PREFIX_BYTES });
    } catch (failure) {
      throw failure instanceof AnswerFailure ? this.mapError(failure.reason, failure.afterHeaders ? 'body' : 'before-headers') : failure;
    }
    if (!answer.complete) {
      throw errors.upstreamBadResponse(this.settings.name, `an answer larger than ${maxBytes} bytes (providers.${this.settings.name}.maxResponseBytes)`);
    }
    return answer;
  }

  private requestOptions(path: string, body: string, headers: Record<string, string>): Dispatcher.DispatchOptions {
    const outgoing: Record<string, string> = {};
    for (const name in headers) {
      if (!HOP_BY_HOP.has(name.toLowerCase())) outgoing[name] = headers[name];
    }
    this.fixedHeaders ??= { ...this.settings.headers, ...this.authHeaders(), 'content-type': 'application/json' };
    Object.assign(outgoing, this.fixedHeaders);
    return {
      method: 'POST',
      path: this.basePath + path,
      headers: outgoing,
      // As bytes: undici keeps the body it was given until the response ends (a stream: its whole
      // length) and makes its own Buffer of a string; given the Buffer, only that copy is kept.
      body: Buffer.from(body),
      headersTimeout: this.settings.timeoutMs,
      bodyTimeout: this.settings.streamIdleTimeoutMs,
    };
  }

  /** Adapters override how the key is sent (Bearer by default). */
  protected authHeaders(): Record<string, string> {
    return this.settings.apiKey ? { authorization: `Bearer ${this.settings.apiKey}` } : {};
  }

  mapError(error: unknown, phase: 'before-headers' | 'body'): GatewayError {
    if (error instanceof GatewayError) return error;
    const name = this.settings.name;
    if (error instanceof undiciErrors.HeadersTimeoutError) return errors.upstreamTimeout(name, this.settings.timeoutMs);
    if (error instanceof undiciErrors.BodyTimeoutError) return errors.streamIdleTimeout(name, this.settings.streamIdleTimeoutMs);
    if (error instanceof undiciErrors.ConnectTimeoutError) return errors.upstreamUnreachable(name, 'connect timeout');
    // Only the client's disconnect aborts an upstream request: not the provider's failure.
    if (error instanceof Error && error.name === 'AbortError') return errors.clientAborted();
    const code = (error as { code?: string })?.code ?? '';
    const detail = code || (error instanceof Error ? error.message : 'unknown error');
    return phase === 'before-headers'
      ? errors.upstreamUnreachable(name, detail)
      : errors.upstreamBadResponse(name, `connection lost mid-response (${detail})`);
  }

  async close(): Promise<void> {
    await this.pool.close();
  }
}

/** The allowlisted client headers, plus the attempt's W3C trace context when tracing is on (adapters send these). */
export function forwardedHeaders(context: Pick<ProviderCallContext, 'forwardHeaders' | 'traceHeaders'>): Record<string, string> {
  return context.traceHeaders ? { ...context.forwardHeaders, ...context.traceHeaders } : context.forwardHeaders;
}

export function headerValue(headers: UpstreamResponse['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether a stream's answer is the event stream asked for (its content-type). */
export function isEventStream(response: UpstreamResponse): boolean {
  return String(response.headers['content-type'] ?? '').includes('text/event-stream');
}

/** A successful status but not an event stream: a 502 naming what came instead (with the start of its body). */
export async function notAnEventStream(provider: string, response: UpstreamResponse): Promise<GatewayError> {
  const type = String(response.headers['content-type'] ?? '');
  const text = await readErrorText(response.body);
  return errors.upstreamBadResponse(provider, `expected an event stream, got '${type || 'no content-type'}' (${text.slice(0, 200)})`);
}

/** The catalogue's type for an upstream status whose body names none. */
export function upstreamTypeFor(status: number): string {
  return STATUS_TYPES[status] ?? (status >= 500 ? 'upstream_error' : 'invalid_request_error');
}

const STATUS_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
};

/** How much of an aggregator's provider detail (OpenRouter's `metadata.raw`) is kept in the message. */
const MAX_DETAIL_CHARS = 500;

/**
 * Turns an upstream's error body into the catalogue's error, keeping the upstream's own message.
 * `status` is the answer's HTTP status; an error sent in a 2xx answer (a stream event, a JSON body)
 * takes the status its body gives as a numeric `code` (OpenRouter: `{"error":{"code":429,…}}`),
 * else 502. An aggregator's detail (`metadata.raw`, `metadata.provider_name`) is appended to the
 * message; configured secrets are scrubbed from it before it reaches the client (upstream-caller.ts).
 */
export function upstreamErrorFrom(
  provider: string,
  status: number,
  text: string,
  headers?: UpstreamResponse['headers'],
): GatewayError {
  let message = text.trim().slice(0, 2000);
  let type: string | null = null;
  let code: string | null = null;
  let param: string | null = null;
  let bodyStatus: number | undefined;
  try {
    const parsed = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
    const inner = Array.isArray(parsed) ? (parsed[0] as typeof parsed) : parsed;
    const err = inner?.error ?? inner;
    if (typeof err === 'string') message = err;
    else if (err && typeof err === 'object') {
      const fields = err as { message?: unknown; type?: unknown; code?: unknown; param?: unknown; status?: unknown; metadata?: unknown };
      if (typeof fields.message === 'string') message = fields.message;
      if (typeof fields.type === 'string') type = fields.type;
      if (typeof fields.code === 'string') code = fields.code;
      else if (typeof fields.status === 'string') code = fields.status;
      if (typeof fields.code === 'number' && Number.isInteger(fields.code) && fields.code >= 400 && fields.code <= 599) bodyStatus = fields.code;
      if (typeof fields.param === 'string') param = fields.param;
      const detail = providerDetail(fields.metadata);
      if (detail) message = `${message} (${detail})`;
    }
    if (typeof inner?.detail === 'string') message = inner.detail;
  } catch {
    // not JSON: keep the raw text
  }
  const mappedStatus = status >= 400 && status <= 599 ? status : (bodyStatus ?? 502);
  if (!message) message = `Provider '${provider}' answered HTTP ${mappedStatus} with an empty body.`;
  const error = errors.upstreamStatus(mappedStatus, message, type ?? upstreamTypeFor(mappedStatus), code, param);
  // The upstream's wait hint drives our retry backoff and reaches the client on a final 429/503.
  for (const name of ['retry-after', 'retry-after-ms']) {
    const value = headers ? headerValue(headers, name) : undefined;
    if (value) error.headers[name] = value;
  }
  return error;
}

/** An aggregator's word on which provider failed and how (OpenRouter's `metadata`), cut to MAX_DETAIL_CHARS. */
function providerDetail(metadata: unknown): string | undefined {
  if (typeof metadata !== 'object' || metadata === null) return undefined;
  const { raw, provider_name: name } = metadata as { raw?: unknown; provider_name?: unknown };
  const rawText = typeof raw === 'string' ? raw : raw !== undefined && raw !== null ? JSON.stringify(raw) : '';
  const parts = [typeof name === 'string' && name ? `provider ${name}` : '', rawText.trim()].filter((part) => part !== '');
  if (parts.length === 0) return undefined;
  const detail = parts.join(': ');
  return detail.length > MAX_DETAIL_CHARS ? `${detail.slice(0, MAX_DETAIL_CHARS)}…` : detail;
}
