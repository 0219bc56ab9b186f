import type { ChatChunk, ChatCompletion, ChatRequest } from '../api/chat-types.js';
import { rawJsonOf, withRawJson } from '../api/raw-json.js';
import { errors, type GatewayError } from '../errors.js';
import { batchedChunks } from './chunk-batches.js';
import { ChunkTemplates } from './chunk-template.js';
import { ChunkShaper, specShapedCompletion } from './compatible-quirks.js';
import { readSse, readSseBatches } from './sse-reader.js';
import { readErrorText } from './upstream-body.js';
import { checkedChunk, checkedCompletion } from './upstream-shapes.js';
import type { NativeResponses, ProviderAdapter, ProviderCallContext, ProviderCapabilities, ProviderSettings, SseEvent } from './types.js';
import { forwardedHeaders, isEventStream, notAnEventStream, UpstreamClient, upstreamErrorFrom, type UpstreamResponse } from './upstream-http.js';

// OpenAI and OpenAI-compatible upstreams (OpenAI, Hugging Face router, Together, vLLM, …):
// the wire format is already ours, so the adapter only sends, maps errors and reads SSE.

const OPENAI_NAME_RULE = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 };
// Mistral-family chat templates reject tool call ids that are not exactly 9 alphanumerics.
const MISTRAL_MODEL = /mistral|mixtral|codestral|devstral|magistral|ministral|pixtral/i;
const MISTRAL_ID = /^[a-zA-Z0-9]{9}$/;
// Kimi K2 (Moonshot's API, vLLM and SGLang alike) names its calls `functions.<name>:<n>` and reads
// the history's ids in that form: other ids make it write malformed ones (Moonshot's tool-call guide).
const KIMI_K2_MODEL = /kimi[-_ ]?k2/i;
// The answers capabilities() can give, built once (read-only for callers).
const NATIVE: ProviderCapabilities = Object.freeze({ nativeTools: true, toolNameRule: OPENAI_NAME_RULE, toolCallIdPattern: undefined });
const NATIVE_MISTRAL_IDS: ProviderCapabilities = Object.freeze({ nativeTools: true, toolNameRule: OPENAI_NAME_RULE, toolCallIdPattern: MISTRAL_ID });
const NATIVE_KIMI_IDS: ProviderCapabilities = Object.freeze({ nativeTools: true, toolNameRule: OPENAI_NAME_RULE, toolCallIdStyle: 'name-counter' });

export class OpenAICompatibleAdapter implements ProviderAdapter {
  private readonly client: UpstreamClient;
  readonly responses?: NativeResponses;

  constructor(readonly settings: ProviderSettings) {
    this.client = new UpstreamClient(settings);
    // Only OpenAI itself is known to serve /responses; compatible hosts get the bridge.
    if (settings.type === 'openai') {
      this.responses = {
        create: (body, context) => this.postJson('/responses', body, context, asObject),
        stream: async (body, context) => this.events(await this.postStream('/responses', { ...body, stream: true }, context)),
        compact: (body, context) => this.postJson('/responses/compact', body, context, asObject),
      };
    }
  }

  capabilities(upstreamModel: string): ProviderCapabilities {
    if (this.settings.type !== 'openai-compatible') return NATIVE;
    if (MISTRAL_MODEL.test(upstreamModel)) return NATIVE_MISTRAL_IDS;
    return KIMI_K2_MODEL.test(upstreamModel) ? NATIVE_KIMI_IDS : NATIVE;
  }

  // Not async: one promise per layer is what the JSON path's call chain cost (postJson checks the answer itself).
  complete(request: ChatRequest, context: ProviderCallContext): Promise<ChatCompletion> {
    return this.postJson('/chat/completions', { ...request, model: context.upstreamModel, stream: false }, context, rawCompletion);
  }

  async stream(request: ChatRequest, context: ProviderCallContext): Promise<AsyncIterable<ChatChunk>> {
    const response = await this.client.post('/chat/completions', JSON.stringify({ ...request, model: context.upstreamModel, stream: true }), forwardedHeaders(context), context.signal);
    // An error status or no event stream: a failure (the async step of its own only then).
    if (response.status >= 400 || !isEventStream(response)) throw await this.notAStream(response);
    return batchedChunks(readSseBatches(response.body, (error) => this.client.mapError(error, 'body'), streamChunkReader(this.settings.name), this.settings));
  }

  /** A JSON answer, checked by `check`: one async step from the request to the checked answer. */
  private async postJson<T>(
    path: string,
    body: Record<string, unknown>,
    context: ProviderCallContext,
    check: (provider: string, parsed: Record<string, unknown>, text: string) => T,
  ): Promise<T> {
    const answer = await this.client.postForText(path, JSON.stringify(body), forwardedHeaders(context), context.signal);
    if (answer.status >= 400) throw upstreamErrorFrom(this.settings.name, answer.status, answer.text, answer.headers);
    const text = answer.text;
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw errors.upstreamBadResponse(this.settings.name, `HTTP ${answer.status} with a body that is not JSON`);
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw errors.upstreamBadResponse(this.settings.name, 'the JSON body is not an object');
    }
    const answerBody = parsed as Record<string, unknown>;
    // An error in a 200 answer (OpenRouter relaying a provider's failure): the error it is, not a malformed completion.
    if (answerBody.choices === undefined && typeof answerBody.error === 'object' && answerBody.error !== null) {
      throw upstreamErrorFrom(this.settings.name, answer.status, text, answer.headers);
    }
    return check(this.settings.name, answerBody, text);
  }

  private async *events(response: UpstreamResponse): AsyncGenerator<SseEvent> {
    yield* readSse(response.body, (error) => this.client.mapError(error, 'body'), this.settings);
  }

  private async postStream(path: string, body: Record<string, unknown>, context: ProviderCallContext): Promise<UpstreamResponse> {
    const response = await this.client.post(path, JSON.stringify(body), forwardedHeaders(context), context.signal);
    if (response.status >= 400 || !isEventStream(response)) throw await this.notAStream(response);
    return response;
  }

  /** Why an answer is not the one asked for: an error status (the upstream's own message) or not an event stream. */
  private async notAStream(response: UpstreamResponse): Promise<GatewayError> {
    if (response.status < 400) return notAnEventStream(this.settings.name, response);
    const text = await readErrorText(response.body);
    return upstreamErrorFrom(this.settings.name, response.status, text, response.headers);
  }

  async close(): Promise<void> {
    await this.client.close();
  }
}

function asObject(_provider: string, parsed: Record<string, unknown>): Record<string, unknown> {
  return parsed;
}

/** A checked completion that remembers the upstream's text: the route relays it when nothing changed it. */
function rawCompletion(provider: string, parsed: Record<string, unknown>, text: string): ChatCompletion {
  const completion = checkedCompletion(provider, parsed, text);
  const shaped = specShapedCompletion(completion);
  return shaped === completion ? completion : shaped;
}

/**
 * Reads one stream's events into chunks that remember the upstream's text (relayed byte for byte
 * when unchanged). A content or argument event shaped like one already parsed is recognized from its text
 * (chunk-template.ts); `templates: false` parses and checks every event (the reference in tests).
 */
export function streamChunkReader(provider: string, templates = true): (event: SseEvent) => ChatChunk {
  const template = new ChunkTemplates();
  const shaper = new ChunkShaper();
  return (event) => {
    const known = templates ? template.match(event.data) : undefined;
    if (known !== undefined) return withRawJson(known, event.data);
    const chunk = parseChunk(provider, event);
    const shaped = shaper.shape(chunk);
    // A reshaped chunk, or one whose keys were filled in, is serialized afresh and teaches no
    // template (its text is not what the client gets).
    if (shaped !== chunk) return shaped;
    if (templates && rawJsonOf(chunk) !== undefined) template.learn(chunk, event.data);
    return chunk;
  };
}

/** One upstream event as a checked chunk that remembers the upstream's text (relayed byte for byte when unchanged). */
function parseChunk(provider: string, event: SseEvent): ChatChunk {
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    throw errors.upstreamBadResponse(provider, 'a stream event that is not JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw errors.upstreamBadResponse(provider, 'a stream event that is not a JSON object');
  }
  const maybeError = (parsed as { error?: unknown }).error;
  if (maybeError !== undefined && maybeError !== null) {
    // An error sent inside a 200 stream: its body's numeric code, if any, is its status.
    throw upstreamErrorFrom(provider, 200, event.data);
  }
  return checkedChunk(provider, parsed, event.data);
}
