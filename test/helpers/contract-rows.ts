import type { Reply } from '../emulators/openai-script.js';

// The rows of the tool-contract table (docs/contract.md): what a request allows, an answer that
// breaks it, an answer that keeps it, and what the corrective message must say.

export const WEATHER_SCHEMA = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
export const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Weather in a city', parameters: WEATHER_SCHEMA } },
  { type: 'function', function: { name: 'get_time', description: 'Time in a zone', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
];

export interface ContractRow {
  name: string;
  kind: string;
  /** The chat request's contract fields. */
  fields: Record<string, unknown>;
  bad: Reply;
  good: Reply;
  /** What the corrective message names. */
  says: RegExp;
  /** The calls the client finally gets (name and arguments as JSON values). */
  expectCalls: Array<{ name: string; arguments: unknown }>;
  expectText?: RegExp;
}

export const ROWS: ContractRow[] = [
  {
    name: 'named tool_choice answered with another tool',
    kind: 'wrong_tool',
    fields: { tool_choice: { type: 'function', function: { name: 'get_time' } } },
    bad: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    good: { toolCalls: [{ name: 'get_time', arguments: { tz: 'Europe/Paris' } }] },
    says: /allows only "get_time", but the answer called "get_weather".*call "get_time"/,
    expectCalls: [{ name: 'get_time', arguments: { tz: 'Europe/Paris' } }],
  },
  {
    name: 'tool_choice required answered with text',
    kind: 'tool_required',
    fields: { tool_choice: 'required' },
    bad: { text: 'It is probably sunny in Paris.' },
    good: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    says: /requires a call to a tool, but the answer called no tool/,
    expectCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  },
  {
    name: 'tool_choice none answered with a call',
    kind: 'tool_choice_none',
    fields: { tool_choice: 'none' },
    bad: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    good: { text: 'I cannot look it up, but Paris is mild in spring.' },
    says: /tool_choice is "none", but the answer called "get_weather".*call no tool/,
    expectCalls: [],
    expectText: /Paris is mild/,
  },
  {
    name: 'parallel_tool_calls false answered with two calls',
    kind: 'parallel_calls',
    fields: { parallel_tool_calls: false },
    bad: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }, { name: 'get_weather', arguments: { city: 'Oslo' } }] },
    good: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    says: /parallel_tool_calls is false, but the answer made 2 calls.*at most one call/,
    expectCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  },
  {
    name: 'arguments missing a required property',
    kind: 'invalid_arguments',
    fields: {},
    bad: { toolCalls: [{ name: 'get_weather', arguments: {} }] },
    good: { toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] },
    says: /arguments of get_weather do not match its parameters schema: \/ must have required property 'city'/,
    expectCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
  },
  {
    name: 'arguments with a wrong type and an extra property',
    kind: 'invalid_arguments',
    fields: {},
    bad: { toolCalls: [{ name: 'get_weather', arguments: { city: 5, zzz: 1 } }] },
    good: { toolCalls: [{ name: 'get_weather', arguments: { city: '5' } }] },
    says: /^(?=.*\/city must be string)(?=.*property the schema does not allow: 'zzz')/,
    expectCalls: [{ name: 'get_weather', arguments: { city: '5' } }],
  },
];

export const CORRECTIVE = /^Your last answer broke this request's rules/;

/** Whether the upstream request is a re-ask (its last message is the corrective one). */
export function isReask(body: { messages?: Array<{ role: string; content?: unknown }> }): boolean {
  const last = body.messages?.[body.messages.length - 1];
  return last?.role === 'user' && typeof last.content === 'string' && CORRECTIVE.test(last.content);
}

/** The `data:` payloads of an SSE body, in order (an event's several `data:` lines joined by "\n", as SSE reads them). */
export function sseData(text: string): string[] {
  const out: string[] = [];
  for (const event of text.split(/\r\n\r\n|\n\n|\r\r/)) {
    const lines = event.split(/\r\n|\r|\n/).filter((line) => line.startsWith('data:'));
    if (lines.length > 0) out.push(lines.map((line) => line.slice(line.startsWith('data: ') ? 6 : 5)).join('\n'));
  }
  return out;
}

/** The calls and text a chat SSE body carried, and its [DONE] count. */
export function readChatStream(text: string): { calls: Array<{ name: string; arguments: string }>; content: string; done: number; finish?: string; chunks: any[] } {
  const calls: Array<{ name: string; arguments: string }> = [];
  let content = '';
  let done = 0;
  let finish: string | undefined;
  const chunks: any[] = [];
  for (const data of sseData(text)) {
    if (data === '[DONE]') {
      done++;
      continue;
    }
    const chunk = JSON.parse(data);
    chunks.push(chunk);
    const choice = chunk.choices?.[0];
    if (!choice) continue;
    if (typeof choice.delta?.content === 'string') content += choice.delta.content;
    for (const part of choice.delta?.tool_calls ?? []) {
      calls[part.index] ??= { name: '', arguments: '' };
      if (part.function?.name) calls[part.index].name += part.function.name;
      if (part.function?.arguments) calls[part.index].arguments += part.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { calls, content, done, finish, chunks };
}
