// What the OpenAI emulator answers: scripts (request → Reply), the default "weather agent" script, and
// builders for full `chat.completion` objects and `chat.completion.chunk` sequences shaped like
// api.openai.com's (ids `chatcmpl-…`/`call_…`, `refusal: null`, `annotations: []`, `logprobs: null`,
// `service_tier`, `system_fingerprint`, `obfuscation` on chunks, `usage: null` on chunks only when
// `stream_options.include_usage` is true).
import { randomBytes } from 'node:crypto';
import type {
  ChatChunk,
  ChatCompletion,
  ChatMessage,
  ChatRequest,
  ChunkDelta,
  FinishReason,
  ToolCall,
  ToolDefinition,
  Usage,
} from '../../src/api/chat-types.js';

export interface ToolCallReply {
  name: string;
  /** An object is JSON-encoded; a string is sent as-is (so tests can script malformed arguments). */
  arguments: Record<string, unknown> | string;
  /** Defaults to a fresh `call_…` id. */
  id?: string;
}
export type Reply =
  | { text: string; toolCalls?: ToolCallReply[]; finishReason?: FinishReason; usage?: Partial<Usage> }
  | { toolCalls: ToolCallReply[]; text?: string; finishReason?: FinishReason; usage?: Partial<Usage> }
  | { error: { status: number; body: unknown; headers?: Record<string, string> } }
  | { raw: { status: number; headers?: Record<string, string>; body: string | object } };
export type Script = (body: ChatRequest, callIndex: number) => Reply | Promise<Reply>;

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export function randomId(prefix: string, length: number): string {
  const bytes = randomBytes(length);
  let out = prefix;
  for (const b of bytes) out += ALPHABET[b % ALPHABET.length];
  return out;
}
/** `chatcmpl-` + 29 characters, like `chatcmpl-B9MHDbslfkBeAs8l4bebGdFOJ6PeG`. */
export const completionId = (): string => randomId('chatcmpl-', 29);
/** `call_` + 24 characters, like `call_W353ADYhbga77VOI65B7MIsL`. */
export const toolCallId = (): string => randomId('call_', 24);
const FINGERPRINT = 'fp_7e6c2a1f4b';

// ---- the default script: a deterministic weather agent ------------------------------------

export function messageText(m: ChatMessage | undefined): string {
  if (!m || m.content === null || m.content === undefined) return '';
  if (typeof m.content === 'string') return m.content;
  return m.content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
}

/** "weather in Paris and Tokyo?" → ["Paris", "Tokyo"]; "forecast for Lima, Oslo & Rome today" → 3 cities. */
export function extractCities(prompt: string): string[] {
  const matches = [...prompt.matchAll(/\b(?:in|for|at)\s+/gi)];
  const last = matches[matches.length - 1];
  const tail = last ? prompt.slice(last.index! + last[0].length) : prompt;
  return tail
    .replace(/\b(today|tomorrow|right now|now|please)\b/gi, ' ')
    .split(/\s*(?:,|;|&|\+|\band\b)\s*/i)
    .map((s) => s.replace(/[?!.:"']+/g, ' ').trim())
    .filter((s) => s.length > 0);
}

function defaultFor(schema: Record<string, unknown> | undefined): unknown {
  if (schema && Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const type = schema?.type;
  return type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'string' ? 'unknown' : null;
}

/** Arguments for one call: the prompt-derived value goes into the first required (else first) property;
 *  other required properties get a plain default (first enum value, 0, false, "unknown"). */
export function argumentsFor(tool: ToolDefinition, value: string): Record<string, unknown> {
  const params = (tool.function.parameters ?? {}) as { properties?: Record<string, Record<string, unknown>>; required?: string[] };
  const props = Object.keys(params.properties ?? {});
  const required = (params.required ?? []).filter((r) => typeof r === 'string');
  const main = required[0] ?? props[0];
  if (!main) return {};
  const args: Record<string, unknown> = { [main]: value };
  for (const r of required) if (!(r in args)) args[r] = defaultFor(params.properties?.[r]);
  return args;
}

/** The default script. The last message is a user message and function tools are declared → call the
 *  first declared tool (or the one `tool_choice` names), once per city the prompt names, in parallel
 *  unless `parallel_tool_calls` is false. Tool results last in the history → a text answer quoting
 *  every tool result after the last user message. Otherwise → echo the last user message. */
export const weatherScript: Script = (body) => {
  const messages = body.messages;
  const last = messages[messages.length - 1];
  if (last?.role === 'tool') {
    let start = messages.length - 1;
    while (start > 0 && messages[start - 1].role !== 'user') start--;
    const results = messages.slice(start).filter((m) => m.role === 'tool').map(messageText);
    return { text: `Here is what I found: ${results.join('; ')}` };
  }
  const prompt = messageText([...messages].reverse().find((m) => m.role === 'user'));
  const tools = (body.tools ?? []).filter((t) => t.type === 'function' && t.function && typeof t.function.name === 'string');
  if (last?.role === 'user' && tools.length > 0 && body.tool_choice !== 'none') {
    const choice = body.tool_choice;
    const named = typeof choice === 'object' && choice && 'function' in choice ? (choice.function as { name?: string }).name : undefined;
    const tool = tools.find((t) => t.function.name === named) ?? tools[0];
    let cities = extractCities(prompt);
    if (cities.length === 0) cities = [prompt.trim() || 'unknown'];
    if (body.parallel_tool_calls === false) cities = cities.slice(0, 1);
    const calls = cities.map((city) => ({ name: tool.function.name, arguments: argumentsFor(tool, city) }));
    const distinct = new Set(calls.map((c) => JSON.stringify(c.arguments)));
    return { toolCalls: distinct.size === 1 ? calls.slice(0, 1) : calls };
  }
  return { text: prompt ? `You said: ${prompt}` : 'Hello! How can I help?' };
};

// ---- building OpenAI-shaped answers ---------------------------------------------------------

export interface Built {
  text: string | null;
  toolCalls: ToolCall[];
  finishReason: FinishReason;
  usage: Usage;
}

const tokens = (s: string): number => Math.max(1, Math.ceil(s.length / 4));

/** Resolve a text/toolCalls reply: ids, JSON-encoded arguments, finish reason, usage. */
export function resolveReply(body: ChatRequest, reply: { text?: string; toolCalls?: ToolCallReply[]; finishReason?: FinishReason; usage?: Partial<Usage> }): Built {
  const toolCalls: ToolCall[] = (reply.toolCalls ?? []).map((c) => ({
    id: c.id ?? toolCallId(),
    type: 'function',
    function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) },
  }));
  const text = reply.text ?? (toolCalls.length > 0 ? null : '');
  const prompt = tokens(JSON.stringify(body.messages ?? [])) + (body.tools ? tokens(JSON.stringify(body.tools)) : 0);
  const completion = tokens((text ?? '') + toolCalls.map((c) => c.function.name + c.function.arguments).join(''));
  const usage: Usage = {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 },
    ...reply.usage,
  };
  usage.total_tokens = reply.usage?.total_tokens ?? usage.prompt_tokens + usage.completion_tokens;
  return { text, toolCalls, finishReason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'), usage };
}

export function buildCompletion(body: ChatRequest, built: Built, id = completionId(), created = Math.floor(Date.now() / 1000)): ChatCompletion {
  return {
    id,
    object: 'chat.completion',
    created,
    model: body.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: built.text,
          refusal: null,
          annotations: [],
          ...(built.toolCalls.length > 0 ? { tool_calls: built.toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: built.finishReason,
      },
    ],
    usage: built.usage,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
  };
}

/** Split a string into fixed-size pieces (JSON arguments end up cut mid-token, as OpenAI streams them). */
export function pieces(s: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < s.length; i += size) out.push(s.slice(i, i + size));
  return out;
}

export interface ChunkOptions {
  /** Characters per argument fragment (default 7). */
  argumentChunkChars?: number;
  /** Words per content delta (default 2). */
  wordsPerChunk?: number;
}

/** The `data:` payloads of a streamed answer, in order (without the final `[DONE]`). */
export function buildChunks(body: ChatRequest, built: Built, opts: ChunkOptions = {}, id = completionId(), created = Math.floor(Date.now() / 1000)): ChatChunk[] {
  const includeUsage = body.stream_options?.include_usage === true;
  const obfuscate = body.stream_options?.include_obfuscation !== false;
  const chunk = (delta: ChunkDelta | null, finish: FinishReason | null = null): ChatChunk => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model: body.model,
    service_tier: 'default',
    system_fingerprint: FINGERPRINT,
    choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [],
    ...(includeUsage ? { usage: delta ? null : built.usage } : {}),
    ...(obfuscate ? { obfuscation: randomId('', 4 + (created % 7)) } : {}),
  });
  const out: ChatChunk[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  const words = built.text ? built.text.match(/\S+\s*|\s+/g) ?? [] : [];
  const per = opts.wordsPerChunk ?? 2;
  for (let i = 0; i < words.length; i += per) out.push(chunk({ content: words.slice(i, i + per).join('') }));
  built.toolCalls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const frag of pieces(call.function.arguments, opts.argumentChunkChars ?? 7)) {
      out.push(chunk({ tool_calls: [{ index, function: { arguments: frag } }] }));
    }
  });
  out.push(chunk({}, built.finishReason));
  if (includeUsage) out.push(chunk(null));
  return out;
}
