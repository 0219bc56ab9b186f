// OpenAI-compatible upstreams of thinking models, each enforcing its provider's documented rule
// about the reasoning that came with a tool call, answering JSON and SSE:
// - 'deepseek' (DeepSeek V3.2/V4 thinking mode, api-docs.deepseek.com/guides/thinking_mode#tool-calls):
//   every assistant message with tool_calls after the last user message must carry
//   `reasoning_content`, else 400 "Missing `reasoning_content` field in the assistant message at
//   message index N. …" (invalid_request_error; the wording reported in continuedev/continue#9831,
//   hotovo/aider-desk#529). Answers carry `reasoning_content` and usage
//   `completion_tokens_details.reasoning_tokens`; streams send `delta.reasoning_content` first.
// - 'gemini-signature' (Gemini 3 on generativelanguage.googleapis.com/v1beta/openai): the first tool
//   call of each assistant step of the current turn must carry the thought signature it was issued
//   with in `extra_content.google.thought_signature`, else 400 "Function call is missing a
//   thought_signature in functionCall parts. …" as a one-element array (openai/openai-python#2758,
//   manthanabc/paws#103); a signature it never issued is refused too (Gemini validates them).
// - 'rejects-reasoning' (Cerebras, Kilo-Org/kilocode#10375): any `reasoning_content` on a message
//   is a 400 "messages.N.assistant.reasoning_content: property '…' is unsupported".
// The agent script: a user message gets a call (with fresh reasoning), each result gets another
// call until `steps` calls were made in the turn, then a text answer.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { startRuleServer } from './rule-server.js';

export type ReasoningRule = 'deepseek' | 'gemini-signature' | 'rejects-reasoning';

type Obj = Record<string, any>;

export interface ReasoningEmulator {
  url: string;
  requests: Obj[];
  /** Reasoning issued per call id, and signatures issued per call id. */
  issuedReasoning: Map<string, string>;
  issuedSignatures: Map<string, string>;
  close(): Promise<void>;
}

const id = (prefix: string): string => `${prefix}${randomBytes(9).toString('base64url')}`;

function currentTurn(messages: Obj[]): Array<[number, Obj]> {
  let start = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') {
      start = i + 1;
      break;
    }
  }
  return messages.map((message, index): [number, Obj] => [index, message]).slice(start);
}

function refusal(rule: ReasoningRule, body: Obj, signatures: Map<string, string>): { status: number; body: unknown } | null {
  const messages: Obj[] = Array.isArray(body.messages) ? body.messages : [];
  if (rule === 'rejects-reasoning') {
    const at = messages.findIndex((m) => m?.reasoning_content !== undefined);
    if (at < 0) return null;
    const where = `messages.${at}.${messages[at].role}.reasoning_content`;
    return { status: 400, body: { message: `${where}: property '${where}' is unsupported`, type: 'invalid_request_error', param: 'validation_error', code: 'wrong_api_format' } };
  }
  for (const [index, message] of currentTurn(messages)) {
    if (message?.role !== 'assistant' || !Array.isArray(message.tool_calls) || message.tool_calls.length === 0) continue;
    if (rule === 'deepseek' && typeof message.reasoning_content !== 'string') {
      return {
        status: 400,
        body: {
          error: {
            message: `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`,
            type: 'invalid_request_error',
            param: null,
            code: 'invalid_request_error',
          },
        },
      };
    }
    if (rule === 'gemini-signature') {
      const first = message.tool_calls[0];
      const signature = first?.extra_content?.google?.thought_signature;
      if (typeof signature !== 'string' || signatures.get(first.id) !== signature) {
        return {
          status: 400,
          body: [
            {
              error: {
                code: 400,
                message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${first?.function?.name}\` , position ${index + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`,
                status: 'INVALID_ARGUMENT',
              },
            },
          ],
        };
      }
    }
  }
  return null;
}

interface Answer {
  reasoning: string;
  content: string | null;
  calls: Obj[];
}

export async function startReasoningEmulator(options: { rule: ReasoningRule; steps?: number; toolName?: string }): Promise<ReasoningEmulator> {
  const requests: Obj[] = [];
  const issuedReasoning = new Map<string, string>();
  const issuedSignatures = new Map<string, string>();
  const steps = options.steps ?? 2;

  function answer(body: Obj): Answer {
    const turn = currentTurn(body.messages ?? []);
    const made = turn.filter(([, m]) => m.role === 'assistant' && Array.isArray(m.tool_calls)).length;
    const reasoning = `Thinking ${id('r')}: step ${made + 1} of the plan.`;
    const tool = body.tools?.[0]?.function?.name ?? options.toolName ?? 'lookup';
    if (made >= steps || !Array.isArray(body.tools)) return { reasoning, content: `Done after ${made} calls.`, calls: [] };
    const call: Obj = { id: id('call_'), type: 'function', function: { name: tool, arguments: JSON.stringify({ q: `step ${made + 1}` }) } };
    issuedReasoning.set(call.id, reasoning);
    if (options.rule === 'gemini-signature') {
      const signature = id('sig_');
      issuedSignatures.set(call.id, signature);
      call.extra_content = { google: { thought_signature: signature } };
    }
    return { reasoning, content: null, calls: [call] };
  }

  const usage = (a: Answer) => {
    const reasoningTokens = Math.ceil(a.reasoning.length / 4);
    const completion = reasoningTokens + 10;
    return { prompt_tokens: 50, completion_tokens: completion, total_tokens: 50 + completion, completion_tokens_details: { reasoning_tokens: reasoningTokens } };
  };

  // Gemini's compatibility layer shows no reasoning text unless asked; the others answer with it.
  const withReasoning = options.rule !== 'gemini-signature';

  function send(res: ServerResponse, body: Obj, a: Answer): void {
    const base = { id: id('chatcmpl-'), created: 1_760_000_000, model: body.model };
    if (body.stream !== true) {
      const message: Obj = { role: 'assistant', content: a.content, ...(withReasoning ? { reasoning_content: a.reasoning } : {}), ...(a.calls.length > 0 ? { tool_calls: a.calls } : {}) };
      const text = JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message, finish_reason: a.calls.length > 0 ? 'tool_calls' : 'stop' }], usage: usage(a) });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(text);
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: Obj, finish: string | null = null, extra: Obj = {}) =>
      res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
    chunk({ role: 'assistant', content: null });
    if (withReasoning) for (const piece of a.reasoning.match(/.{1,7}/gs) ?? []) chunk({ reasoning_content: piece });
    if (a.content) chunk({ content: a.content });
    a.calls.forEach((call, index) => {
      const args: string = call.function.arguments;
      chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' }, ...(call.extra_content ? { extra_content: call.extra_content } : {}) }] });
      for (const piece of args.match(/.{1,5}/gs) ?? []) chunk({ tool_calls: [{ index, function: { arguments: piece } }] });
    });
    chunk({}, a.calls.length > 0 ? 'tool_calls' : 'stop');
    if (body.stream_options?.include_usage === true) res.write(`data: ${JSON.stringify({ ...base, object: 'chat.completion.chunk', choices: [], usage: usage(a) })}\n\n`);
    res.end('data: [DONE]\n\n');
  }

  const server = await startRuleServer(requests, { refusal: (body) => refusal(options.rule, body, issuedSignatures), answer: (res, body) => send(res, body, answer(body)) });
  return { url: server.url, requests, issuedReasoning, issuedSignatures, close: () => server.close() };
}
