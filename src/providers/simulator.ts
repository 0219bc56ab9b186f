import { randomBytes } from 'node:crypto';
import type { ChatChunk, ChatCompletion, ChatMessage, ChatRequest, ToolCall, ToolDefinition, Usage } from '../api/chat-types.js';
import { errors } from '../errors.js';
import type { ProviderAdapter, ProviderCallContext, ProviderCapabilities, ProviderSettings } from './types.js';

// The built-in deterministic model: no network, no key. `weather` answers the first user turn
// with a native call to a declared tool (arguments derived from the prompt) and, once tool
// results are in the history, a final answer quoting them. `weather:hermes` writes the same
// call as `<tool_call>{json}</tool_call>` text, as many open models do.

const MODELS = new Set(['weather', 'weather:hermes']);
const NAME_RULE = { pattern: /^[a-zA-Z0-9_-]{1,64}$/, maxLength: 64 };

interface PlannedCall {
  name: string;
  args: Record<string, unknown>;
}

interface Plan {
  content: string | null;
  calls: PlannedCall[];
}

export class SimulatorAdapter implements ProviderAdapter {
  readonly models = [...MODELS];

  constructor(readonly settings: ProviderSettings) {}

  capabilities(): ProviderCapabilities {
    return { nativeTools: true, toolNameRule: NAME_RULE };
  }

  async complete(request: ChatRequest, context: ProviderCallContext): Promise<ChatCompletion> {
    const model = this.checkModel(context.upstreamModel);
    const plan = planAnswer(request, model.endsWith(':hermes'));
    const toolCalls = plan.calls.map(toToolCall);
    return {
      id: `chatcmpl-sim${randomId(20)}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: `simulator/${model}`,
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: plan.content, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
          logprobs: null,
        },
      ],
      usage: usageFor(request, plan),
    };
  }

  async stream(request: ChatRequest, context: ProviderCallContext): Promise<AsyncIterable<ChatChunk>> {
    const model = this.checkModel(context.upstreamModel);
    const plan = planAnswer(request, model.endsWith(':hermes'));
    return streamPlan(plan, `simulator/${model}`, usageFor(request, plan), request.stream_options?.include_usage === true);
  }

  private checkModel(model: string): string {
    if (!MODELS.has(model)) throw errors.modelNotFound(`simulator/${model}`);
    return model;
  }
}

async function* streamPlan(plan: Plan, model: string, usage: Usage, includeUsage: boolean): AsyncGenerator<ChatChunk> {
  const base = { id: `chatcmpl-sim${randomId(20)}`, object: 'chat.completion.chunk' as const, created: Math.floor(Date.now() / 1000), model };
  const extra = includeUsage ? { usage: null } : {};
  yield { ...base, ...extra, choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] };
  if (plan.content) {
    for (const piece of splitEvery(plan.content, 12)) {
      yield { ...base, ...extra, choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] };
    }
  }
  for (const [index, call] of plan.calls.entries()) {
    const toolCall = toToolCall(call);
    yield {
      ...base,
      ...extra,
      choices: [{ index: 0, delta: { tool_calls: [{ index, id: toolCall.id, type: 'function', function: { name: toolCall.function.name, arguments: '' } }] }, finish_reason: null }],
    };
    for (const piece of splitEvery(toolCall.function.arguments, 7)) {
      yield { ...base, ...extra, choices: [{ index: 0, delta: { tool_calls: [{ index, function: { arguments: piece } }] }, finish_reason: null }] };
    }
  }
  yield { ...base, ...extra, choices: [{ index: 0, delta: {}, finish_reason: plan.calls.length ? 'tool_calls' : 'stop' }] };
  if (includeUsage) yield { ...base, choices: [], usage };
}

function planAnswer(request: ChatRequest, asHermesText: boolean): Plan {
  const messages = request.messages;
  // Prompt mode (tools described in the system prompt, results as <tool_response> user turns):
  // the simulator plays an open model without native tools and answers in Hermes text.
  const promptTools = request.tools?.length ? [] : toolsFromSystemPrompt(messages);
  if (promptTools.length > 0) asHermesText = true;
  const isResponseTurn = (m: ChatMessage): boolean => m.role === 'user' && TOOL_RESPONSE.test(textOf(m));
  const lastUser = findLastIndex(messages, (m) => m.role === 'user' && !isResponseTurn(m));
  const results = messages.slice(lastUser + 1).filter((m) => m.role === 'tool' || isResponseTurn(m));
  const tools = promptTools.length > 0 ? promptTools : request.tools ?? [];
  const prompt = lastUser >= 0 ? textOf(messages[lastUser]) : '';

  if (results.length > 0) {
    const quoted = results.map((m) => textOf(m).replace(TOOL_RESPONSE_TAGS, '').trim()).join('; ');
    return { content: `Here is what the tools returned: ${quoted}`, calls: [] };
  }
  if (tools.length === 0 || request.tool_choice === 'none') {
    return { content: `Simulated answer to: ${prompt}`, calls: [] };
  }
  const tool = pickTool(tools, request);
  const calls = argumentSets(tool, prompt).map((args) => ({ name: tool.function.name, args }));
  if (!asHermesText) return { content: null, calls };
  const text = calls.map((c) => `<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args })}\n</tool_call>`).join('\n');
  return { content: text, calls: [] };
}

const TOOL_RESPONSE = /<tool_response>/;
const TOOL_RESPONSE_TAGS = /<\/?tool_response>/g;
const TOOLS_BLOCK = /<tools>\n([\s\S]*?)\n<\/tools>/;

function toolsFromSystemPrompt(messages: ChatMessage[]): ToolDefinition[] {
  const system = messages.find((m) => m.role === 'system' || m.role === 'developer');
  const block = system ? TOOLS_BLOCK.exec(textOf(system)) : null;
  if (!block) return [];
  const tools: ToolDefinition[] = [];
  for (const line of block[1].split('\n')) {
    try {
      const parsed = JSON.parse(line) as { function?: ToolDefinition['function'] };
      if (parsed.function?.name) tools.push({ type: 'function', function: parsed.function });
    } catch {
      // not a tool line
    }
  }
  return tools;
}

function pickTool(tools: ToolDefinition[], request: ChatRequest): ToolDefinition {
  const choice = request.tool_choice;
  if (choice && typeof choice === 'object' && 'function' in choice) {
    const wanted = (choice.function as { name?: string }).name;
    const named = tools.find((t) => t.function.name === wanted);
    if (named) return named;
  }
  return tools.find((t) => /weather/i.test(t.function.name)) ?? tools[0];
}

/** One argument set per place named in the prompt ("Paris and Tokyo" → two parallel calls). */
function argumentSets(tool: ToolDefinition, prompt: string): Array<Record<string, unknown>> {
  const schema = (tool.function.parameters ?? {}) as { properties?: Record<string, { type?: unknown }>; required?: string[] };
  const properties = schema.properties ?? {};
  const names = Object.keys(properties);
  const placeKey = names.find((n) => /city|location|place|town/i.test(n));
  const places = placeKey ? placesIn(prompt) : [];
  const sets = places.length > 0 ? places : [undefined];
  return sets.map((place) => {
    const args: Record<string, unknown> = {};
    for (const name of names) {
      const type = properties[name]?.type;
      if (name === placeKey) args[name] = place ?? prompt;
      else if ((schema.required ?? []).includes(name)) args[name] = type === 'number' || type === 'integer' ? 1 : type === 'boolean' ? true : prompt;
    }
    return args;
  });
}

function placesIn(prompt: string): string[] {
  const match = /\b(?:in|for|at)\s+([A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*(?:\s*(?:,|and)\s*[A-Z][\p{L}'-]*(?:\s+[A-Z][\p{L}'-]*)*)*)/u.exec(prompt);
  if (!match) return [];
  return match[1].split(/\s*(?:,|\band\b)\s*/).map((p) => p.trim()).filter(Boolean);
}

function textOf(message: ChatMessage): string {
  const content = message.content;
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p.text === 'string' ? p.text : '')).join('');
  return '';
}

function toToolCall(call: PlannedCall): ToolCall {
  return { id: `call_${randomId(24)}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } };
}

function usageFor(request: ChatRequest, plan: Plan): Usage {
  const promptChars = request.messages.reduce((sum, m) => sum + textOf(m).length, 0);
  const completionChars = (plan.content ?? '').length + plan.calls.reduce((s, c) => s + JSON.stringify(c.args).length + c.name.length, 0);
  const prompt_tokens = Math.max(1, Math.ceil(promptChars / 4));
  const completion_tokens = Math.max(1, Math.ceil(completionChars / 4));
  return { prompt_tokens, completion_tokens, total_tokens: prompt_tokens + completion_tokens };
}

function splitEvery(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function findLastIndex<T>(items: T[], predicate: (item: T) => boolean): number {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return i;
  return -1;
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
function randomId(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}
