import { LRUCache } from 'lru-cache';
import { Gauge, type Registry } from 'prom-client';
import type { ChatMessage, ChatRequest } from '../api/chat-types.js';
import type { ProviderType } from '../providers/types.js';
import { echoes, saysItself, upstream400Message } from '../request-echo.js';
import { ANONYMOUS_SCOPE, scopedKey } from '../util/scope.js';
import { isChatRequest } from '../repair/checked.js';
import { restoreReasoningPass } from '../repair/restore-reasoning.js';
import type { Finding, RepairContext } from '../repair/types.js';

// What an upstream wants done with the reasoning that came with an earlier tool call
// (docs/reasoning.md), per provider and model, like tool support (tool-support.ts):
// - required: the assistant tool-call messages of the current turn must carry it back
//   (`reasoning_content`, Gemini's `thought_signature`); what the client dropped is restored from
//   the call ledger (src/repair/restore-reasoning.ts).
// - rejected: the upstream refuses `reasoning_content` on a message; it is removed before sending.
// - neither (the default): what the client sent goes through unchanged, nothing is added.
// Known models are listed below; any other is learned from the upstream's own 400 (then retried
// once; words the client sent itself do not count: request-echo.ts) and remembered for a while,
// bounded, for the gateway key whose request taught it.

export type ReasoningEcho = 'required' | 'rejected';

/** Models known to need their reasoning back in a tool loop (matched on the upstream model id). */
const REQUIRES_REASONING: readonly RegExp[] = [
  // DeepSeek V3.2 / V4 thinking mode (deepseek-reasoner): 400 without it inside the current turn.
  /deepseek/i,
  // Kimi K2 Thinking and later: the reasoning of earlier steps must stay in the context.
  /kimi-k2/i,
  // GLM-4.5 and later, "preserved thinking".
  /\bglm-(?:4\.[5-9]|[5-9])/i,
  // Gemini 3 through an OpenAI-compatible endpoint: each call's thought_signature in extra_content.
  /\bgemini-(?:[3-9]|\d\d)/i,
];

// An upstream that wants the reasoning back names the field and says it is needed, in many
// wordings (DeepSeek: "Missing `reasoning_content` field in the assistant message at message index
// 2", and since V4 "The `reasoning_content` in the thinking mode must be passed back to the API.";
// Moonshot/Kimi: "thinking is enabled but reasoning_content is missing in assistant tool call
// message"; LiteLLM's check: "assistant message with tool_calls must include reasoning_content";
// Gemini: "Function call is missing a thought_signature in functionCall parts"; Vertex: "function
// call `f` in the 2. content block is missing a `thought_signature`"). So: a sentence naming the
// field, with words of need (missing, required, must be / must include, passed back) and none of
// refusal or of a wrong value (unsupported, not allowed, must not, invalid, …). Sentences are cut
// at most MAX_SENTENCE characters around the field: linear on any message.
const REASONING_FIELD = /\b(?:reasoning_content|reasoning_details|thought_?signature|thoughtSignature)\b/gi;
const NEEDED = /\b(?:missing|required|requires?|must (?:be|include|contain|carry|have)|needs? to be|should be (?:passed|sent|returned|included|provided|preserved|kept)|pass(?:ed)? back)\b/i;
const NOT_NEEDED = /\b(?:not supported|unsupported|not allowed|not permitted|must not|should not|cannot|can't|extra|unknown|unrecognized|unexpected|forbidden|invalid|corrupted)\b/i;
const MAX_SENTENCE = 160;
// Wordings of an upstream that refuses the field (Cerebras: "property
// 'messages.2.assistant.reasoning_content' is unsupported"; pydantic servers: "Extra inputs are not
// permitted"; OpenAI-style: "Unrecognized/Unknown parameter ... reasoning_content").
const SAYS_REJECTED = [
  /reasoning_content'?`?"?[^\n]{0,80}?\b(?:is unsupported|is not supported|not allowed|was unexpected|is unexpected|extra inputs are not permitted|extra_forbidden)/i,
  /\b(?:unknown|unrecognized|unexpected|unsupported|additional) (?:field|parameter|property|properties|argument)[^\n]{0,80}?reasoning_content\b/i,
];

const MAX_MODELS = 1_000;
const LEARNED_TTL_MS = 6 * 3_600_000;

/** Whether an upstream error says an assistant message lacks the reasoning of its tool calls (`request`: what was sent). */
export function saysReasoningMissing(error: unknown, request?: unknown): boolean {
  const message = upstream400Message(error);
  if (message === undefined) return false;
  const field = new RegExp(REASONING_FIELD.source, REASONING_FIELD.flags);
  for (let match = field.exec(message); match; match = field.exec(message)) {
    const [start, end] = sentenceAround(message, match.index, match.index + match[0].length);
    const sentence = message.slice(start, end);
    if (NOT_NEEDED.test(sentence)) continue;
    const need = NEEDED.exec(sentence);
    // The upstream's own words, not the client's text quoted back (request-echo.ts).
    if (need && (request === undefined || !echoes(message, start + need.index, start + need.index + need[0].length, request))) return true;
  }
  return false;
}

/** The bounds of the sentence around `[from, to)`: up to a full stop followed by a blank, a line break, or MAX_SENTENCE characters either side. */
function sentenceAround(message: string, from: number, to: number): [number, number] {
  let start = from;
  while (start > 0 && from - start < MAX_SENTENCE && !endsSentence(message, start - 1)) start--;
  let end = to;
  while (end < message.length && end - to < MAX_SENTENCE && !endsSentence(message, end)) end++;
  return [start, end];
}

function endsSentence(message: string, at: number): boolean {
  const char = message[at];
  return char === '\n' || ((char === '.' || char === '!' || char === '?') && (at + 1 === message.length || message[at + 1] === ' '));
}

/** Whether an upstream error says it does not take `reasoning_content` on a message (`request`: what was sent). */
export function saysReasoningRejected(error: unknown, request?: unknown): boolean {
  const message = upstream400Message(error);
  return message !== undefined && !saysReasoningMissing(error, request) && saysItself(message, SAYS_REJECTED, request);
}

/** The echo known for a model without asking it; undefined when only its errors can tell. */
export function knownReasoningEcho(providerType: ProviderType, upstreamModel: string): ReasoningEcho | undefined {
  // The native Gemini adapter puts signatures back itself (providers/gemini/signatures.ts); the
  // simulator takes anything.
  if (providerType !== 'openai-compatible' && providerType !== 'openai') return undefined;
  return REQUIRES_REASONING.some((pattern) => pattern.test(upstreamModel)) ? 'required' : undefined;
}

/** Known echoes plus what upstreams said, per `provider/upstream model`, bounded and expiring. */
export class ReasoningSupportMemory {
  private readonly learned = new LRUCache<string, ReasoningEcho>({ max: MAX_MODELS, ttl: LEARNED_TTL_MS });

  constructor(registry?: Registry) {
    if (!registry) return;
    const counts = (): Record<ReasoningEcho, number> => {
      this.learned.purgeStale();
      const out: Record<ReasoningEcho, number> = { required: 0, rejected: 0 };
      for (const echo of this.learned.values()) out[echo]++;
      return out;
    };
    new Gauge({
      name: 'toolgate_reasoning_learned_models',
      help: 'Models whose upstream said they need the reasoning of earlier tool calls back (required) or refuse reasoning_content (rejected); expire after 6 h.',
      labelNames: ['echo'],
      registers: [registry],
      collect() {
        for (const [echo, count] of Object.entries(counts())) this.set({ echo }, count);
      },
    });
  }

  /** What `modelKey` wants, as learned for the gateway key of `scope`, else as known. */
  echoOf(providerType: ProviderType, modelKey: string, upstreamModel: string, scope: string = ANONYMOUS_SCOPE): ReasoningEcho | undefined {
    const learned = this.learned.size > 0 ? this.learned.get(scopedKey(scope, modelKey)) : undefined;
    return learned ?? knownReasoningEcho(providerType, upstreamModel);
  }

  learn(modelKey: string, echo: ReasoningEcho, scope: string = ANONYMOUS_SCOPE): void {
    this.learned.set(scopedKey(scope, modelKey), echo);
  }

  get size(): number {
    return this.learned.size;
  }
}

/** The request without `reasoning_content` on any message (for an upstream that refuses it); the same object when none had it. */
export function withoutReasoning(request: ChatRequest): ChatRequest {
  if (!request.messages.some(hasReasoningField)) return request;
  return { ...request, messages: request.messages.map((message) => (hasReasoningField(message) ? stripReasoning(message) : message)) };
}

function hasReasoningField(message: ChatMessage): boolean {
  return message.role === 'assistant' && message.reasoning_content !== undefined;
}

function stripReasoning(message: ChatMessage): ChatMessage {
  const { reasoning_content: _dropped, ...rest } = message;
  return rest as ChatMessage;
}

/** restore-reasoning on an already repaired request, for a target found to need it after the repair step. */
export type ReasoningRestorer = (request: ChatRequest) => { request: ChatRequest; findings: Finding[] };

export function reasoningRestorer(context: RepairContext): ReasoningRestorer {
  return (request) => {
    const result = restoreReasoningPass.run(request, { ...context, restoreReasoning: true });
    // The pass adds only reasoning_content and signatures: still the checked request type.
    return isChatRequest(result.request) ? { request: result.request, findings: result.findings } : { request, findings: [] };
  };
}
