import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';

// For stream-shapes.test.ts: an answer as api.openai.com streams it (every key written out) and as
// JSON, and what a client of each door assembles from toolgate's reply, reduced to what the answer
// says (ids, which each reply makes anew, left out).

export interface Answer {
  text: string;
  reasoning: string;
  calls: Array<{ name: string; args: Record<string, unknown> }>;
  finish: 'stop' | 'tool_calls' | 'length';
}

export interface Doors {
  openai: OpenAI;
  anthropic: Anthropic;
  model: string;
}

type Json = Record<string, unknown>;
const ID = 'chatcmpl-shapes';
const USAGE = { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 };

/** The answer's chunks as api.openai.com writes them: every key present, null where empty, a usage chunk last. */
export function chatChunksFor(answer: Answer, wordsPerChunk: number): Json[] {
  const chunk = (delta: Json | null, finish: string | null = null): Json => ({
    id: ID,
    object: 'chat.completion.chunk',
    created: 1_760_000_000,
    model: 'example-model',
    system_fingerprint: 'fp_shapes',
    choices: delta ? [{ index: 0, delta, logprobs: null, finish_reason: finish }] : [],
    usage: delta ? null : USAGE,
  });
  const out: Json[] = [chunk({ role: 'assistant', content: '', refusal: null })];
  for (const piece of pieces(answer.reasoning, wordsPerChunk)) out.push(chunk({ reasoning_content: piece }));
  for (const piece of pieces(answer.text, wordsPerChunk)) out.push(chunk({ content: piece }));
  answer.calls.forEach((call, index) => {
    out.push(chunk({ tool_calls: [{ index, id: `call_shape${index}x7Qz`, type: 'function', function: { name: call.name, arguments: '' } }] }));
    const args = JSON.stringify(call.args);
    for (let at = 0; at < args.length; at += 5) out.push(chunk({ tool_calls: [{ index, function: { arguments: args.slice(at, at + 5) } }] }));
  });
  out.push(chunk({}, answer.finish));
  out.push(chunk(null));
  return out;
}

function pieces(text: string, wordsPerChunk: number): string[] {
  const words = text.match(/\S+\s*|\s+/g) ?? [];
  const out: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) out.push(words.slice(i, i + wordsPerChunk).join(''));
  return out;
}

export function completionFor(answer: Answer): Json {
  const calls = answer.calls.map((call, index) => ({ id: `call_shape${index}x7Qz`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }));
  return {
    id: ID,
    object: 'chat.completion',
    created: 1_760_000_000,
    model: 'example-model',
    system_fingerprint: 'fp_shapes',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: answer.text === '' ? null : answer.text, refusal: null, ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}), ...(calls.length ? { tool_calls: calls } : {}) },
        logprobs: null,
        finish_reason: answer.finish,
      },
    ],
    usage: USAGE,
  };
}

/** Every tool the answer may call, with a schema any of its arguments meet. */
export function toolsFor(answer: Answer): string[] {
  return answer.calls.length > 0 ? ['get_weather', 'search_docs'] : [];
}

const SCHEMA = { type: 'object', properties: {}, additionalProperties: true };

/** Reasoning text of a chat delta in whichever spelling it came (what a chat client reading it must do). */
function deltaReasoning(delta: Json): string {
  if (typeof delta.reasoning_content === 'string' && delta.reasoning_content !== '') return delta.reasoning_content;
  if (typeof delta.reasoning === 'string' && delta.reasoning !== '') return delta.reasoning;
  if (!Array.isArray(delta.reasoning_details)) return '';
  return delta.reasoning_details.map((part: Json) => (typeof part.text === 'string' ? part.text : '')).join('');
}

const chatCalls = (calls: ReadonlyArray<{ function: { name: string; arguments: string } }> | undefined): unknown[] =>
  (calls ?? []).map((call) => ({ name: call.function.name, args: JSON.parse(call.function.arguments) as unknown }));

export async function assembleChat(doors: Doors, tools: string[]): Promise<{ stream: unknown; json: unknown }> {
  const params = {
    model: doors.model,
    messages: [{ role: 'user' as const, content: 'go' }],
    ...(tools.length ? { tools: tools.map((name) => ({ type: 'function' as const, function: { name, parameters: SCHEMA } })) } : {}),
  };
  const stream = doors.openai.chat.completions.stream({ ...params, stream_options: { include_usage: true } });
  let reasoning = '';
  for await (const chunk of stream) for (const choice of chunk.choices) reasoning += deltaReasoning(choice.delta as unknown as Json);
  const streamed = (await stream.finalChatCompletion()).choices[0];
  const json = (await doors.openai.chat.completions.create(params)).choices[0];
  const jsonMessage = json.message as unknown as Json;
  return {
    stream: { text: streamed.message.content ?? '', reasoning, calls: chatCalls(streamed.message.tool_calls as never), finish: streamed.finish_reason },
    json: { text: json.message.content ?? '', reasoning: deltaReasoning(jsonMessage), calls: chatCalls(json.message.tool_calls as never), finish: json.finish_reason },
  };
}

function responseSays(response: OpenAI.Responses.Response): unknown {
  return {
    status: response.status,
    output: response.output.map((item) => {
      if (item.type === 'message') return { message: item.content.map((part) => (part.type === 'output_text' ? part.text : part.type)).join('') };
      if (item.type === 'function_call') return { call: item.name, args: JSON.parse(item.arguments) as unknown };
      if (item.type === 'reasoning') return { reasoning: (item.content ?? []).map((part) => part.text).join('') };
      return { other: item.type };
    }),
  };
}

export async function assembleResponses(doors: Doors, tools: string[]): Promise<{ stream: unknown; json: unknown }> {
  const params = {
    model: doors.model,
    input: 'go',
    ...(tools.length ? { tools: tools.map((name) => ({ type: 'function' as const, name, parameters: SCHEMA, strict: false })) } : {}),
  };
  const stream = doors.openai.responses.stream(params);
  const streamed = await stream.finalResponse();
  const json = await doors.openai.responses.create(params);
  return { stream: responseSays(streamed), json: responseSays(json) };
}

function messageSays(message: Anthropic.Message): unknown {
  return {
    stop: message.stop_reason,
    content: message.content.map((block) => {
      if (block.type === 'text') return { text: block.text };
      if (block.type === 'thinking') return { thinking: block.thinking };
      if (block.type === 'tool_use') return { tool: block.name, input: block.input };
      return { other: block.type };
    }),
  };
}

export async function assembleMessages(doors: Doors, tools: string[]): Promise<{ stream: unknown; json: unknown }> {
  const params = {
    model: doors.model,
    max_tokens: 256,
    messages: [{ role: 'user' as const, content: 'go' }],
    ...(tools.length ? { tools: tools.map((name) => ({ name, input_schema: { ...SCHEMA, type: 'object' as const } })) } : {}),
  };
  const streamed = await doors.anthropic.messages.stream(params).finalMessage();
  const json = await doors.anthropic.messages.create(params);
  return { stream: messageSays(streamed), json: messageSays(json) };
}
