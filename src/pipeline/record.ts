import type { FastifyBaseLogger as Logger } from 'fastify';
import type { AssistantMessage, ChatChunk, ChatCompletion, RawChatRequest, ToolCall, Usage } from '../api/chat-types.js';
import type { Gateway } from './gateway.js';
import { prefixFingerprint } from '../ledger/fingerprint.js';
import { reasoningTextOf } from '../api/reasoning-text.js';
import { boundedForLedger, callSignature, MAX_LEDGER_REASONING_BYTES, withSignature } from '../ledger/reasoning.js';
import type { ResolvedModel } from '../routing/router.js';
import { scopeOf } from '../util/scope.js';
import { TextBuilder } from '../toolcalls/text-builder.js';

// The call ledger remembers every tool-calling answer exactly as the client got it, keyed by
// call id and by the fingerprint of the conversation that produced it, so a later request that
// lost the calls can get them back. Keyed on the client's own (pre-repair) messages, because
// that is what the client will send again. The reasoning that came with the calls
// (`reasoning_content`, Gemini thought signatures on the calls) is kept with them, within its own
// bound, so a client that drops it can get it back (src/repair/restore-reasoning.ts).

export function recordAnswer(
  gateway: Gateway,
  clientRequest: RawChatRequest,
  completion: ChatCompletion,
  target: ResolvedModel,
  log: Logger,
  scope?: string,
): Promise<void> {
  const message = completion.choices[0]?.message;
  if (!message?.tool_calls?.length) return NOTHING_TO_RECORD;
  return remember(gateway, clientRequest, message, target, log, scope);
}

const NOTHING_TO_RECORD: Promise<void> = Promise.resolve();

// Not `async`: the memory ledger's record is synchronous and hands back a settled promise; an
// async function around it cost every tool-calling answer a promise and a frame more.
function remember(
  gateway: Gateway,
  clientRequest: RawChatRequest,
  message: AssistantMessage,
  target: ResolvedModel,
  log: Logger,
  scope: string | undefined,
): Promise<void> {
  let recorded: Promise<void>;
  try {
    recorded = gateway.ledger.forScope(scopeOf(scope)).record({
      message: boundedForLedger(message),
      prefixFingerprint: prefixFingerprint(clientRequest.messages, clientRequest.messages.length, scope),
      provider: target.provider.settings.name,
      model: target.requested,
      createdAt: Date.now(),
    });
  } catch (error) {
    writeFailed(log, error);
    return NOTHING_TO_RECORD;
  }
  return recorded.then(undefined, (error: unknown) => writeFailed(log, error));
}

/** The answer already reached (or is reaching) the client; a ledger outage costs only future repairs. */
function writeFailed(log: Logger, error: unknown): void {
  log.warn({ err: error }, 'call ledger write failed');
}

/** Rebuilds the assistant message from normalized stream chunks (choice 0) and records it at the end. */
export class StreamAnswerRecorder {
  // Content and arguments arrive a token at a time and are kept to the end of the stream: built
  // in flat blocks (TextBuilder), not a rope node per token.
  private readonly content = new TextBuilder();
  private reasoning = new TextBuilder();
  /** Reasoning went past what the ledger keeps: no more is gathered, none is recorded. */
  private reasoningOverflow = false;
  private readonly calls: CallBuilder[] = [];
  usage: Usage | undefined;

  constructor(
    private readonly gateway: Gateway,
    private readonly clientRequest: RawChatRequest,
    private readonly target: ResolvedModel,
    private readonly log: Logger,
    private readonly scope?: string,
  ) {}

  observe(chunk: ChatChunk): void {
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices[0];
    if (!choice || choice.index !== 0) return;
    const delta = choice.delta;
    if (typeof delta.content === 'string') this.content.append(delta.content);
    const reasoning = reasoningTextOf(delta);
    if (reasoning !== '') this.observeReasoning(reasoning);
    const parts = delta.tool_calls;
    if (!parts) return;
    for (let i = 0; i < parts.length; i++) {
      const part = parts[i];
      let call = this.calls[part.index];
      if (!call) {
        call = { id: '', name: new TextBuilder(), arguments: new TextBuilder() };
        this.calls[part.index] = call;
      }
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name.append(part.function.name);
      if (part.function?.arguments) call.arguments.append(part.function.arguments);
      const signature = callSignature(part);
      if (signature !== '') call.signature = signature;
    }
  }

  private observeReasoning(text: string): void {
    if (this.reasoningOverflow) return;
    // Length in UTF-16 units bounds the UTF-8 bytes from below: enough to stop gathering.
    if (this.reasoning.length + text.length > MAX_LEDGER_REASONING_BYTES) {
      this.reasoningOverflow = true;
      this.reasoning = new TextBuilder();
      return;
    }
    this.reasoning.append(text);
  }

  /** Choice 0 as rebuilt so far (the request journal reads it at the end). */
  get answer(): { content: string; calls: readonly ToolCall[]; reasoning?: string } {
    const reasoning = this.reasoningOverflow ? undefined : this.reasoning.text;
    return { content: this.content.text, calls: this.toolCalls(), ...(reasoning ? { reasoning } : {}) };
  }

  async finish(): Promise<void> {
    const calls = this.toolCalls();
    if (calls.length === 0) return;
    const content = this.content.text;
    const message: AssistantMessage = { role: 'assistant', content: content || null, tool_calls: calls };
    const reasoning = this.reasoningOverflow ? '' : this.reasoning.text;
    if (reasoning !== '') message.reasoning_content = reasoning;
    await remember(this.gateway, this.clientRequest, message, this.target, this.log, this.scope);
  }

  private toolCalls(): ToolCall[] {
    const calls: ToolCall[] = [];
    for (const call of this.calls) {
      if (!call) continue;
      const built: ToolCall = { id: call.id, type: 'function', function: { name: call.name.text, arguments: call.arguments.text } };
      calls.push(call.signature === undefined ? built : withSignature(built, call.signature));
    }
    return calls;
  }
}

interface CallBuilder {
  id: string;
  name: TextBuilder;
  arguments: TextBuilder;
  /** Gemini's thought signature, when the call carried one (`extra_content.google`). */
  signature?: string;
}
