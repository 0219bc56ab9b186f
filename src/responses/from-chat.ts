import { reasoningTextOf } from '../api/reasoning-text.js';
import type { AssistantMessage, ChatCompletion, FinishReason, Usage } from '../api/chat-types.js';
import { customInputOf, type DeclaredTool } from './bridge-tools.js';
import { newId } from './ids.js';
import { isRecord, type FunctionTool, type Item, type ResponseObject, type ResponseStatus, type ResponseTool, type ResponseUsage, type ResponsesRequest } from '../api/responses-types.js';

// Chat Completions → Responses: the answer becomes output items (a reasoning item when the
// upstream sent reasoning text, a `message` with `output_text`, a `function_call` per tool call,
// each with its own id), usage becomes input/output tokens, and finish_reason "length" becomes
// status "incomplete". Every field the Open Responses spec requires of a response object is there
// from response.created on, null until known (`completed_at`, `usage`), as OpenAI sends them.

/** The response object as it stands before any output: what `response.created` carries. */
export function baseResponse(request: ResponsesRequest, id: string, createdAt: number, previousResponseId: string | undefined): ResponseObject {
  const response: ResponseObject = {
    id,
    object: 'response',
    created_at: createdAt,
    status: 'in_progress',
    background: false,
    error: null,
    incomplete_details: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    model: request.model,
    output: [],
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: previousResponseId ?? null,
    reasoning: isRecord(request.reasoning) ? { effort: request.reasoning.effort ?? null, summary: request.reasoning.summary ?? null } : null,
    service_tier: 'default',
    store: request.store !== false,
    temperature: request.temperature ?? 1,
    text: { format: { type: 'text' }, ...(isRecord(request.text) ? request.text : {}) },
    tool_choice: request.tool_choice ?? 'auto',
    tools: (request.tools ?? []).map(echoTool),
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    metadata: request.metadata ?? {},
    // Sampling settings as sent upstream (to-chat.ts); no logprobs are returned. max_tool_calls caps
    // calls to built-in tools, which the bridge never runs (they are left out): met, and echoed.
    presence_penalty: request.presence_penalty ?? 0,
    frequency_penalty: request.frequency_penalty ?? 0,
    top_logprobs: 0,
    max_tool_calls: request.max_tool_calls ?? null,
    user: request.user ?? null,
    safety_identifier: request.safety_identifier ?? null,
    prompt_cache_key: request.prompt_cache_key ?? null,
    completed_at: null,
    usage: null,
  };
  return response;
}

/** Function tools as OpenAI echoes them: `parameters` and `strict` always present. */
function echoTool(tool: ResponseTool): ResponseTool {
  if (tool.type !== 'function') return tool;
  const flat = tool as FunctionTool;
  return { ...flat, description: flat.description ?? null, parameters: flat.parameters ?? null, strict: flat.strict ?? true };
}

export function toResponseUsage(usage: Usage | undefined | null): ResponseUsage | undefined {
  if (!usage) return undefined;
  const input = usage.prompt_tokens ?? 0;
  const output = usage.completion_tokens ?? 0;
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: usage.prompt_tokens_details?.cached_tokens ?? 0, cache_write_tokens: 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: usage.completion_tokens_details?.reasoning_tokens ?? 0 },
    total_tokens: usage.total_tokens ?? input + output,
  };
}

/** Status and incomplete_details for a chat finish_reason. */
export function statusOf(finish: FinishReason | null | undefined): Pick<ResponseObject, 'status' | 'incomplete_details'> {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** Reasoning text some chat upstreams add to the message or delta, in any of their spellings. */
export { reasoningTextOf };

export function reasoningItem(text: string, id = newId('rs'), status = 'completed'): Item {
  return { id, type: 'reasoning', summary: [], content: [{ type: 'reasoning_text', text }], status };
}

export function messageItem(text: string, id = newId('msg'), status = 'completed'): Item {
  return { id, type: 'message', status, role: 'assistant', content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] };
}

export function functionCallItem(callId: string, name: string, args: string, id = newId('fc'), status = 'completed', namespace?: string): Item {
  return { id, type: 'function_call', status, arguments: args, call_id: callId, ...(namespace !== undefined ? { namespace } : {}), name };
}

export function customToolCallItem(callId: string, name: string, input: string, id = newId('ctc'), status = 'completed', namespace?: string): Item {
  return { id, type: 'custom_tool_call', status, call_id: callId, ...(namespace !== undefined ? { namespace } : {}), name, input };
}

/** Chat name → the tool the client declared (bridge-tools.ts); a name it does not know stays a plain function. */
export type DeclaredTools = ReadonlyMap<string, DeclaredTool>;

/** The output item of one chat tool call: a function_call (with its namespace) or a custom_tool_call. */
export function callItem(callId: string, chatName: string, args: string, declared: DeclaredTools | undefined, id?: string, status = 'completed'): Item {
  const tool = declared?.get(chatName);
  if (tool?.kind === 'custom') return customToolCallItem(callId, tool.name, customInputOf(args), id, status, tool.namespace);
  return functionCallItem(callId, tool?.name ?? chatName, args, id, status, tool?.namespace);
}

/** The output items of one chat answer, in the order the model produced them. */
export function outputOf(message: AssistantMessage, itemStatus: string, declared?: DeclaredTools): Item[] {
  const output: Item[] = [];
  const reasoning = reasoningTextOf(message);
  if (reasoning !== '') output.push(reasoningItem(reasoning));
  const text = typeof message.content === 'string' ? message.content : '';
  if (text !== '') output.push(messageItem(text, undefined, itemStatus));
  for (const call of message.tool_calls ?? []) output.push(callItem(call.id, call.function.name, call.function.arguments, declared));
  return output;
}

/** The finished response for a chat completion. */
export function responseFromCompletion(base: ResponseObject, completion: ChatCompletion, now = Math.floor(Date.now() / 1000), declared?: DeclaredTools): ResponseObject {
  const choice = completion.choices[0];
  const state = statusOf(choice?.finish_reason);
  const output = choice ? outputOf(choice.message, state.status === 'completed' ? 'completed' : 'incomplete', declared) : [];
  return finish(base, output, state, toResponseUsage(completion.usage), now);
}

export function finish(
  base: ResponseObject,
  output: Item[],
  state: { status: ResponseStatus; incomplete_details: ResponseObject['incomplete_details'] },
  usage: ResponseUsage | undefined,
  now = Math.floor(Date.now() / 1000),
): ResponseObject {
  return { ...base, ...state, output, completed_at: state.status === 'completed' ? now : null, usage: usage ?? null };
}
