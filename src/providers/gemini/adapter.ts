import type { ChatChunk, ChatCompletion, ChatRequest } from '../../api/chat-types.js';
import { errors } from '../../errors.js';
import { readSse, type SseEvent } from '../sse-reader.js';
import type { ProviderAdapter, ProviderCallContext, ProviderCapabilities, ProviderSettings, ToolNameRule } from '../types.js';
import { readErrorText } from '../upstream-body.js';
import { forwardedHeaders, headerValue, isEventStream, notAnEventStream, UpstreamClient, type UpstreamResponse } from '../upstream-http.js';
import { geminiError } from './errors.js';
import { buildRequest, modelPath } from './request.js';
import { toCompletion, type AnswerContext } from './response.js';
import { isJsonObject } from './schema.js';
import { checkedGeminiResponse } from './wire-check.js';
import { lookupCallMeta, recordCallMeta } from './signatures.js';
import { StreamTranslator } from './stream.js';
import type { GenerateContentResponse } from './wire-types.js';

// The Gemini adapter: translate, POST to models/{model}:generateContent (or
// :streamGenerateContent?alt=sse), translate back. Thought signatures go through the ledger.

/** FunctionDeclaration.name: a letter or `_` first, then [a-zA-Z0-9_.:-], at most 64. */
export const GEMINI_NAME_RULE: ToolNameRule = { pattern: /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,63}$/, maxLength: 64 };

/** The key goes in x-goog-api-key, never in the URL (URLs end up in logs). */
class GeminiClient extends UpstreamClient {
  private readonly key: string | undefined;
  constructor(settings: ProviderSettings) {
    super(settings);
    this.key = settings.apiKey;
  }
  protected override authHeaders(): Record<string, string> {
    return this.key ? { 'x-goog-api-key': this.key } : {};
  }
}

export class GeminiAdapter implements ProviderAdapter {
  private readonly client: GeminiClient;

  constructor(readonly settings: ProviderSettings) {
    this.client = new GeminiClient(settings);
  }

  capabilities(): ProviderCapabilities {
    return { nativeTools: true, toolNameRule: GEMINI_NAME_RULE };
  }

  async complete(request: ChatRequest, context: ProviderCallContext): Promise<ChatCompletion> {
    const { answer, path, body } = await this.prepare(request, context, false);
    // The whole answer read as text off the pool, with the same caps as every JSON answer (answer-text.ts).
    const reply = await this.client.postForText(path, body, forwardedHeaders(context), context.signal);
    if (reply.status >= 400) throw geminiError(this.settings.name, reply.status, reply.text, headerValue(reply.headers, 'retry-after'));
    let parsed: unknown;
    try {
      parsed = JSON.parse(reply.text);
    } catch {
      throw errors.upstreamBadResponse(this.settings.name, 'the body is not JSON');
    }
    if (!isJsonObject(parsed)) throw errors.upstreamBadResponse(this.settings.name, 'the body is not a JSON object');
    const { completion, callMeta } = toCompletion(checkedGeminiResponse(this.settings.name, parsed), answer);
    const messages = completion.choices.map((c) => c.message);
    await recordCallMeta(context.ledger, { messages, callMeta, provider: this.settings.name, model: context.upstreamModel }, answer.warn);
    return completion;
  }

  /** Resolves after the first upstream event, so a blocked prompt or early error is a real HTTP status. */
  async stream(request: ChatRequest, context: ProviderCallContext): Promise<AsyncIterable<ChatChunk>> {
    const { answer, response } = await this.send(request, context);
    const translator = new StreamTranslator(answer, request.stream_options?.include_usage === true);
    const events = readSse(response.body, (error) => this.client.mapError(error, 'body'), this.settings);
    const first = await this.nextEvent(events);
    const firstChunks = first ? translator.push(first) : [];
    const recorded = new Set<string>();
    // Records calls not yet recorded; runs before any finish chunk goes out, because a fast
    // client may send the next turn (with these calls) as soon as it sees finish_reason.
    const record = async () => {
      const pending = Object.keys(translator.callMeta).filter((id) => !recorded.has(id));
      if (pending.length === 0) return;
      pending.forEach((id) => recorded.add(id));
      const messages = translator.messages().filter((m) => m.tool_calls?.some((c) => pending.includes(c.id)));
      await recordCallMeta(context.ledger, { messages, callMeta: translator.callMeta, provider: this.settings.name, model: context.upstreamModel }, answer.warn);
    };
    return this.chunks(events, translator, firstChunks, record);
  }

  private async *chunks(events: AsyncGenerator<SseEvent>, translator: StreamTranslator, firstChunks: ChatChunk[], record: () => Promise<void>): AsyncGenerator<ChatChunk> {
    const emit = async function* (chunks: ChatChunk[]) {
      for (const chunk of chunks) {
        if (chunk.choices.length === 0 || chunk.choices.some((c) => c.finish_reason !== null)) await record();
        yield chunk;
      }
    };
    try {
      yield* emit(firstChunks);
      for (let event = await this.nextEvent(events); event; event = await this.nextEvent(events)) {
        yield* emit(translator.push(event));
      }
      yield* emit(translator.end());
    } finally {
      await events.return(undefined);
    }
  }

  private async nextEvent(events: AsyncGenerator<SseEvent>): Promise<GenerateContentResponse | null> {
    const next = await events.next();
    if (next.done) return null;
    let parsed: unknown;
    try {
      parsed = JSON.parse(next.value.data);
    } catch {
      throw errors.upstreamBadResponse(this.settings.name, 'a stream event that is not JSON');
    }
    if (!isJsonObject(parsed)) throw errors.upstreamBadResponse(this.settings.name, 'a stream event that is not a JSON object');
    if (isJsonObject(parsed.error)) {
      const code = typeof parsed.error.code === 'number' ? parsed.error.code : 502;
      throw geminiError(this.settings.name, code, next.value.data);
    }
    return checkedGeminiResponse(this.settings.name, parsed);
  }

  /** The translated request (thought signatures from the ledger) and what reading its answer needs. */
  private async prepare(request: ChatRequest, context: ProviderCallContext, stream: boolean): Promise<{ answer: AnswerContext; path: string; body: string }> {
    if (!this.settings.apiKey) throw errors.providerKeyMissing(this.settings.name, this.settings.apiKeyEnv ?? 'GEMINI_API_KEY');
    const warn = (message: string, detail: Record<string, unknown>) => context.log.warn({ ...detail, provider: this.settings.name, requestId: context.requestId }, message);
    const meta = await lookupCallMeta(context.ledger, request.messages, warn);
    const { body, fixes } = buildRequest(request, { model: context.upstreamModel, meta });
    const answer: AnswerContext = { provider: this.settings.name, model: `${this.settings.name}/${context.upstreamModel}`, fixes, warn };
    return { answer, path: modelPath(context.upstreamModel, stream), body: JSON.stringify(body) };
  }

  /** A stream's request: an error status or anything but an event stream is a failure. */
  private async send(request: ChatRequest, context: ProviderCallContext): Promise<{ answer: AnswerContext; response: UpstreamResponse }> {
    const { answer, path, body } = await this.prepare(request, context, true);
    const response = await this.client.post(path, body, forwardedHeaders(context), context.signal);
    if (response.status >= 400) {
      const text = await readErrorText(response.body);
      throw geminiError(this.settings.name, response.status, text, headerValue(response.headers, 'retry-after'));
    }
    if (!isEventStream(response)) throw await notAnEventStream(this.settings.name, response);
    return { answer, response };
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}
