import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import {
  ATTR_ERROR_TYPE,
  ATTR_HTTP_REQUEST_METHOD,
  ATTR_HTTP_RESPONSE_STATUS_CODE,
  ATTR_HTTP_ROUTE,
  ATTR_SERVER_ADDRESS,
  ATTR_SERVER_PORT,
  ATTR_URL_PATH,
  ATTR_USER_AGENT_ORIGINAL,
} from '@opentelemetry/semantic-conventions';
import type { ChatCompletion } from '../api/chat-types.js';
import { GatewayError } from '../errors.js';
import { isRecord } from '../is-record.js';
import { classifyFailure, type FailureRow } from '../resilience/failures.js';
import type { ProviderSettings } from '../providers/types.js';
import { GEN_AI, REPAIR_EVENT, TOOLGATE } from './attributes.js';
import {
  contentJson,
  factsOfCompletion,
  factsOfResponse,
  inputMessagesOf,
  outputItemsOf,
  outputMessagesOf,
  requestSettingsOf,
  StreamFacts,
  type AnswerFacts,
  type CapturedMessage,
} from './genai.js';
import type { AttemptStart, AttemptTrace, RequestFacts, RequestStart, RequestTrace } from './types.js';

// The spans: one SERVER span per HTTP request, one CLIENT span per upstream attempt under it,
// named and attributed after the GenAI semantic conventions (docs/tracing.md has the table).
// Loaded only when tracing is on (through sdk.ts).

export interface SpanEnv {
  tracer: Tracer;
  propagator: TextMapPropagator;
  captureContent: boolean;
  /** Scrubs configured secrets (provider and gateway keys) from text that reaches a span. */
  redact: (text: string) => string;
}

const MAX_REPAIR_EVENTS = 128;

export class ServerSpan implements RequestTrace {
  readonly logFields: Readonly<Record<string, string>>;
  private readonly span: Span;
  private readonly context: Context;
  private requestBody: unknown;
  private settings: Attributes | undefined;
  private firstTarget: string | undefined;
  private answeredByFallback = false;

  constructor(private readonly env: SpanEnv, start: RequestStart) {
    const parent = env.propagator.extract(ROOT_CONTEXT, start.headers, defaultTextMapGetter);
    const agent = start.headers['user-agent'];
    this.span = env.tracer.startSpan(
      start.route ? `${start.method} ${start.route}` : start.method,
      {
        kind: SpanKind.SERVER,
        attributes: {
          [ATTR_HTTP_REQUEST_METHOD]: start.method,
          [ATTR_URL_PATH]: env.redact(start.path),
          ...(start.route ? { [ATTR_HTTP_ROUTE]: start.route } : {}),
          ...(typeof agent === 'string' ? { [ATTR_USER_AGENT_ORIGINAL]: env.redact(agent.slice(0, 256)) } : {}),
          [TOOLGATE.requestId]: start.requestId,
        },
      },
      parent,
    );
    this.context = trace.setSpan(parent, this.span);
    const ids = this.span.spanContext();
    this.logFields = { trace_id: ids.traceId, span_id: ids.spanId, trace_flags: `0${ids.traceFlags.toString(16)}` };
  }

  body(body: unknown): void {
    this.requestBody = body;
  }

  attempt(start: AttemptStart): AttemptTrace {
    const key = `${start.target.provider.settings.name}/${start.target.upstreamModel}`;
    this.firstTarget ??= key;
    const fallback = key !== this.firstTarget;
    const repaired = start.repaired ? { [start.repaired.target]: start.repaired.items } : undefined;
    const input = this.env.captureContent ? inputMessagesOf(repaired ?? this.requestBody) : undefined;
    this.settings ??= requestSettingsOf(this.requestBody);
    return new AttemptSpan(this.env, this.context, start, { fallback, settings: this.settings, input }, () => {
      this.answeredByFallback = fallback;
    });
  }

  end(facts: RequestFacts): void {
    const span = this.span;
    if (!span.isRecording()) return span.end();
    const attributes: Attributes = {
      [ATTR_HTTP_RESPONSE_STATUS_CODE]: facts.status,
      ...(facts.model !== undefined ? { [TOOLGATE.model]: this.env.redact(facts.model) } : {}),
      ...(facts.provider !== undefined ? { [TOOLGATE.provider]: facts.provider } : {}),
      ...(facts.stream !== undefined ? { [TOOLGATE.stream]: facts.stream } : {}),
      ...(facts.toolCallSource !== undefined ? { [TOOLGATE.toolCallSource]: facts.toolCallSource } : {}),
      ...(facts.llmCalls !== undefined ? { [TOOLGATE.llmCalls]: facts.llmCalls } : {}),
      ...(facts.keyName !== undefined ? { [TOOLGATE.keyName]: facts.keyName } : {}),
      ...(facts.taskId !== undefined ? { [TOOLGATE.taskId]: this.env.redact(facts.taskId) } : {}),
      ...(this.firstTarget !== undefined ? { [TOOLGATE.fallback]: this.answeredByFallback } : {}),
      ...(facts.clientAborted ? { [TOOLGATE.clientAborted]: true } : {}),
      ...(facts.contractViolations?.length ? { [TOOLGATE.contractViolations]: facts.contractViolations, [TOOLGATE.contractReasks]: facts.contractReasks ?? 0 } : {}),
    };
    if (facts.repairs.length > 0) {
      attributes[TOOLGATE.repairCount] = facts.repairs.length;
      attributes[TOOLGATE.repairKinds] = [...new Set(facts.repairs.map((repair) => repair.kind))];
      // The SDK keeps 128 events per span by default: the count above stays exact past that.
      for (const repair of facts.repairs.slice(0, MAX_REPAIR_EVENTS)) {
        span.addEvent(REPAIR_EVENT, {
          [TOOLGATE.repairKind]: repair.kind,
          ...(repair.index !== undefined && repair.index >= 0 ? { [TOOLGATE.repairIndex]: repair.index } : {}),
          ...(repair.detail !== undefined ? { [TOOLGATE.repairDetail]: this.env.redact(repair.detail.slice(0, 500)) } : {}),
        });
      }
    }
    span.setAttributes(attributes);
    // HTTP server semantics: 5xx is the server's error, 4xx the client's (status left unset).
    if (facts.status >= 500) {
      span.setAttribute(ATTR_ERROR_TYPE, String(facts.status));
      span.setStatus({ code: SpanStatusCode.ERROR, ...(facts.error ? { message: this.env.redact(facts.error) } : {}) });
    }
    span.end();
  }
}

class AttemptSpan implements AttemptTrace {
  readonly headers: Readonly<Record<string, string>>;
  private readonly span: Span;
  private ended = false;

  constructor(
    private readonly env: SpanEnv,
    parent: Context,
    private readonly start: AttemptStart,
    request: { fallback: boolean; settings: Attributes; input: CapturedMessage[] | undefined },
    private readonly onAnswer: () => void,
  ) {
    const { fallback, settings: requestSettings, input } = request;
    const settings = start.target.provider.settings;
    const operation = settings.type === 'gemini' ? 'generate_content' : 'chat';
    const model = start.target.upstreamModel;
    this.span = env.tracer.startSpan(
      `${operation} ${model}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          [GEN_AI.operationName]: operation,
          [GEN_AI.providerName]: providerNameOf(settings),
          [GEN_AI.requestModel]: model,
          ...requestSettings,
          ...serverOf(settings),
          [TOOLGATE.provider]: settings.name,
          [TOOLGATE.model]: start.target.requested,
          [TOOLGATE.attempt]: start.attempt,
          [TOOLGATE.fallback]: fallback,
          ...(start.reask !== undefined ? { [TOOLGATE.contractReask]: start.reask } : {}),
        },
      },
      parent,
    );
    if (input && this.span.isRecording()) this.span.setAttribute(GEN_AI.inputMessages, contentJson(input, env.redact));
    const headers: Record<string, string> = {};
    env.propagator.inject(trace.setSpan(ROOT_CONTEXT, this.span), headers, defaultTextMapSetter);
    this.headers = headers;
  }

  answered<T>(result: T): T {
    if (isRecord(result) && result.kind === 'json' && isRecord(result.completion)) {
      const completion = result.completion as ChatCompletion;
      this.finish(factsOfCompletion(completion), () => outputMessagesOf(completion));
    } else if (isRecord(result) && result.kind === 'stream') {
      // The chat stream's items (chunks, or batches of chunks) under whatever name the step gives them.
      const field = Object.keys(result).find((key) => isAsyncIterable(result[key]));
      if (field) return { ...result, [field]: this.follow(result[field] as AsyncIterable<unknown>) } as T;
      this.finish({ finishReasons: [] });
    } else if (isAsyncIterable(result)) {
      return this.follow(result) as T;
    } else if (isRecord(result) && result.object === 'response') {
      this.finish(factsOfResponse(result), () => outputItemsOf(result));
    } else {
      this.finish({ finishReasons: [] });
    }
    return result;
  }

  failed(error: unknown, row: FailureRow): void {
    if (this.ended) return;
    this.ended = true;
    this.span.setAttributes({
      [ATTR_ERROR_TYPE]: row,
      [TOOLGATE.failure]: row,
      ...(error instanceof GatewayError && error.kind === 'upstream_status' ? { [ATTR_HTTP_RESPONSE_STATUS_CODE]: error.status } : {}),
    });
    const message = error instanceof Error ? error.message : String(error);
    this.span.setStatus({ code: SpanStatusCode.ERROR, message: this.env.redact(message.slice(0, 500)) });
    this.span.end();
  }

  /** Hands the stream on, item by item; the span ends when the upstream stream does. */
  private async *follow<I>(items: AsyncIterable<I>): AsyncGenerator<I> {
    const stream = new StreamFacts(this.env.captureContent && this.span.isRecording());
    try {
      for await (const item of items) {
        stream.observe(item);
        yield item;
      }
      this.finish(stream.facts, () => stream.output());
    } catch (error) {
      this.failed(error, classifyFailure(error, this.start.signal).row);
      throw error;
    } finally {
      // The consumer stopped reading (the client went away): the upstream stream was cut.
      if (!this.ended) this.failed(new Error('the stream was not read to its end'), 'client_aborted');
    }
  }

  private finish(facts: AnswerFacts, output?: () => CapturedMessage[] | undefined): void {
    if (this.ended) return;
    this.ended = true;
    this.onAnswer();
    if (this.span.isRecording()) {
      this.span.setAttributes({
        ...(facts.id !== undefined ? { [GEN_AI.responseId]: facts.id } : {}),
        ...(facts.model !== undefined ? { [GEN_AI.responseModel]: facts.model } : {}),
        ...(facts.finishReasons.length > 0 ? { [GEN_AI.finishReasons]: facts.finishReasons } : {}),
        ...(facts.inputTokens !== undefined ? { [GEN_AI.inputTokens]: facts.inputTokens } : {}),
        ...(facts.outputTokens !== undefined ? { [GEN_AI.outputTokens]: facts.outputTokens } : {}),
      });
      const messages = this.env.captureContent ? output?.() : undefined;
      if (messages) this.span.setAttribute(GEN_AI.outputMessages, contentJson(messages, this.env.redact));
    }
    this.span.end();
  }
}

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

// gen_ai.provider.name: the conventions' well-known values where the upstream is one of them,
// else the configured provider name (toolgate.provider always carries that name).
const WELL_KNOWN_HOSTS: ReadonlyArray<[RegExp, string]> = [
  [/(^|\.)openai\.com$/, 'openai'],
  [/(^|\.)generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/(^|\.)groq\.com$/, 'groq'],
  [/(^|\.)deepseek\.com$/, 'deepseek'],
  [/(^|\.)mistral\.ai$/, 'mistral_ai'],
  [/(^|\.)x\.ai$/, 'x_ai'],
  [/(^|\.)perplexity\.ai$/, 'perplexity'],
  [/(^|\.)cohere\.(com|ai)$/, 'cohere'],
];

const servers = new WeakMap<ProviderSettings, { name: string; address: Attributes }>();

function described(settings: ProviderSettings): { name: string; address: Attributes } {
  let known = servers.get(settings);
  if (known) return known;
  let host: string | undefined;
  let port: number | undefined;
  try {
    const url = new URL(settings.baseUrl);
    host = url.hostname;
    port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  } catch {
    // the simulator has no URL
  }
  const byHost = host ? WELL_KNOWN_HOSTS.find(([pattern]) => pattern.test(host))?.[1] : undefined;
  const name = settings.type === 'gemini' ? 'gcp.gemini' : settings.type === 'openai' ? 'openai' : (byHost ?? settings.name);
  known = { name, address: host ? { [ATTR_SERVER_ADDRESS]: host, [ATTR_SERVER_PORT]: port } : {} };
  servers.set(settings, known);
  return known;
}

function providerNameOf(settings: ProviderSettings): string {
  return described(settings).name;
}

function serverOf(settings: ProviderSettings): Attributes {
  return described(settings).address;
}
