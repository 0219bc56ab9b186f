import type OpenAI from 'openai';

export const WEATHER_TOOL = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false },
  },
};

export interface StreamResult {
  chunks: any[];
  content: string;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finishReason: string | null;
}

/** Assembles a streamed answer exactly as client code does (by tool_call index). */
export async function collectStream(stream: AsyncIterable<any>): Promise<StreamResult> {
  const chunks: any[] = [];
  let content = '';
  let finishReason: string | null = null;
  const calls: StreamResult['toolCalls'] = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (choice.delta?.content) content += choice.delta.content;
    for (const d of choice.delta?.tool_calls ?? []) {
      calls[d.index] ??= { id: '', type: 'function', function: { name: '', arguments: '' } };
      if (d.id) calls[d.index].id = d.id;
      if (d.function?.name) calls[d.index].function.name += d.function.name;
      if (d.function?.arguments) calls[d.index].function.arguments += d.function.arguments;
    }
    if (choice.finish_reason) finishReason = choice.finish_reason;
  }
  return { chunks, content, toolCalls: calls, finishReason };
}

export interface LoopResult {
  final: string;
  steps: number;
  llmCalls: number;
  calls: StreamResult['toolCalls'][];
  responses: any[];
  chunks: any[];
  headers: Headers[];
}

/** A minimal agent: call the model, run every tool call with `runTool`, repeat until a final answer. */
export async function runToolLoop(
  client: OpenAI,
  model: string,
  prompt: string,
  stream: boolean,
  options: { tools?: any[]; runTool?: (name: string, args: any) => string; maxSteps?: number; system?: string } = {},
): Promise<LoopResult> {
  const tools = options.tools ?? [WEATHER_TOOL];
  const runTool = options.runTool ?? ((_name: string, args: any) => JSON.stringify({ city: args.city ?? args.query, temperature_c: 21, sky: 'clear' }));
  const messages: any[] = [...(options.system ? [{ role: 'system', content: options.system }] : []), { role: 'user', content: prompt }];
  const result: LoopResult = { final: '', steps: 0, llmCalls: 0, calls: [], responses: [], chunks: [], headers: [] };
  for (let i = 0; i < (options.maxSteps ?? 6); i++) {
    result.llmCalls += 1;
    let toolCalls: StreamResult['toolCalls'];
    let content: string | null;
    let finishReason: string | null;
    if (stream) {
      const { data, response } = await client.chat.completions.create({ model, messages, tools, stream: true }).withResponse();
      result.headers.push(response.headers);
      const collected = await collectStream(data);
      result.chunks.push(...collected.chunks);
      toolCalls = collected.toolCalls.filter(Boolean);
      content = collected.content || null;
      finishReason = collected.finishReason;
    } else {
      const { data, response } = await client.chat.completions.create({ model, messages, tools }).withResponse();
      result.headers.push(response.headers);
      result.responses.push(data);
      toolCalls = (data.choices[0].message.tool_calls ?? []) as StreamResult['toolCalls'];
      content = data.choices[0].message.content;
      finishReason = data.choices[0].finish_reason;
    }
    if (toolCalls.length === 0) {
      result.final = content ?? '';
      return result;
    }
    if (finishReason !== 'tool_calls') throw new Error(`finish_reason ${finishReason} with tool calls`);
    result.steps += 1;
    result.calls.push(toolCalls);
    messages.push({ role: 'assistant', content, tool_calls: toolCalls });
    for (const call of toolCalls) {
      messages.push({ role: 'tool', tool_call_id: call.id, content: runTool(call.function.name, JSON.parse(call.function.arguments)) });
    }
  }
  throw new Error('tool loop did not finish');
}
