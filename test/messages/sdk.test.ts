import t from 'tap';
import Anthropic from '@anthropic-ai/sdk';
import type { Message, MessageParam, RawMessageStreamEvent, Tool } from '@anthropic-ai/sdk/resources/messages';
import { startOpenAIEmulator, weatherScript, type Script } from '../emulators/openai-server.js';
import { startGeminiEmulator } from '../emulators/gemini-server.js';
import { configFor, startGateway } from '../helpers/gateway.js';
import { eventProblems, messageProblems } from './shapes.js';

// The official @anthropic-ai/sdk driving multi-turn tool loops through toolgate's /v1/messages on
// the simulator, an emulated OpenAI-compatible upstream (native and text calls) and an emulated
// Gemini: messages.create (JSON and raw events) and messages.stream (its finalMessage() must equal
// what the events said, and the loop must reach the same answer as JSON). Every message and event
// is checked against the SDK's shapes (shapes.ts).

const WEATHER: Tool = {
  name: 'get_weather',
  description: 'Current weather for a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

type Mode = 'create' | 'events' | 'stream';

interface Loop {
  final: string;
  rounds: number;
  messages: Message[];
  events: RawMessageStreamEvent[];
}

async function once(client: Anthropic, body: Anthropic.MessageCreateParamsNonStreaming, mode: Mode, events: RawMessageStreamEvent[]): Promise<Message> {
  if (mode === 'create') return client.messages.create(body);
  if (mode === 'events') {
    const stream = await client.messages.create({ ...body, stream: true });
    const seen: RawMessageStreamEvent[] = [];
    for await (const event of stream) seen.push(event);
    events.push(...seen);
    return fold(seen);
  }
  const stream = client.messages.stream(body);
  const seen: RawMessageStreamEvent[] = [];
  // Cloned as they arrive: the helper keeps mutating message_start's message as its snapshot.
  stream.on('streamEvent', (event) => seen.push(structuredClone(event)));
  const final = await stream.finalMessage();
  events.push(...seen);
  // The helper's own accumulation and ours agree on what the events said.
  const folded = fold(seen);
  if (JSON.stringify(stripLazy(final)) !== JSON.stringify(folded)) throw new Error(`finalMessage() differs from the events: ${JSON.stringify(final)} vs ${JSON.stringify(folded)}`);
  // And the same request answered as JSON is the same message (ids aside: each answer gets its own).
  const json = await client.messages.create(body);
  if (JSON.stringify(withoutIds(json)) !== JSON.stringify(withoutIds(stripLazy(final)))) throw new Error(`finalMessage() differs from the JSON answer: ${JSON.stringify(final)} vs ${JSON.stringify(json)}`);
  return final;
}

function withoutIds(message: unknown): unknown {
  const copy = structuredClone(message) as Message;
  copy.id = '';
  for (const block of copy.content) if (block.type === 'tool_use') block.id = '';
  return copy;
}

/** A message from its events, the way the wire format defines it (independent of the SDK helper). */
function fold(events: RawMessageStreamEvent[]): Message {
  let message: any;
  const json: string[] = [];
  for (const event of events) {
    if (event.type === 'message_start') message = structuredClone(event.message);
    else if (event.type === 'content_block_start') message.content[event.index] = structuredClone(event.content_block);
    else if (event.type === 'content_block_delta') {
      const block = message.content[event.index];
      const delta: any = event.delta;
      if (delta.type === 'text_delta') block.text += delta.text;
      else if (delta.type === 'thinking_delta') block.thinking += delta.thinking;
      else if (delta.type === 'input_json_delta') json[event.index] = (json[event.index] ?? '') + delta.partial_json;
    } else if (event.type === 'content_block_stop') {
      if (json[event.index] !== undefined) message.content[event.index].input = JSON.parse(json[event.index]);
    } else if (event.type === 'message_delta') {
      message.stop_reason = event.delta.stop_reason;
      message.stop_sequence = event.delta.stop_sequence;
      Object.assign(message.usage, Object.fromEntries(Object.entries(event.usage).filter(([, v]) => v !== null && v !== undefined)));
    }
  }
  return message as Message;
}

/** The helper's snapshot without what it adds itself (parsed_output, a structured-output convenience). */
function stripLazy(message: Message): Message {
  const { parsed_output: _parsed, ...rest } = JSON.parse(JSON.stringify(message)) as Message & { parsed_output?: unknown };
  return rest as Message;
}

async function loop(client: Anthropic, model: string, mode: Mode, prompt = 'What is the weather in Paris?'): Promise<Loop> {
  const out: Loop = { final: '', rounds: 0, messages: [], events: [] };
  const messages: MessageParam[] = [{ role: 'user', content: prompt }];
  for (let i = 0; i < 5; i++) {
    const message = await once(client, { model, max_tokens: 512, messages, tools: [WEATHER] }, mode, out.events);
    out.messages.push(message);
    const calls = message.content.filter((block) => block.type === 'tool_use');
    if (calls.length === 0) {
      out.final = message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return out;
    }
    if (message.stop_reason !== 'tool_use') throw new Error(`calls with stop_reason ${message.stop_reason}`);
    out.rounds++;
    messages.push({ role: 'assistant', content: message.content as any });
    messages.push({
      role: 'user',
      content: calls.map((call) => ({ type: 'tool_result' as const, tool_use_id: call.id, content: JSON.stringify({ city: (call.input as { city: string }).city, temperature_c: 21 }) })),
    });
  }
  throw new Error('loop did not finish');
}

/** OpenAI-compatible upstream that writes its tool calls as Hermes text (an open model without a tool parser). */
const textCallScript: Script = (body, index) => {
  const reply = weatherScript(body, index);
  if (!('toolCalls' in reply) || !reply.toolCalls) return reply;
  return { text: reply.toolCalls.map((call) => `<tool_call>\n${JSON.stringify({ name: call.name, arguments: call.arguments })}\n</tool_call>`).join('\n') };
};

t.test('Anthropic SDK tool loops on every upstream', async (t) => {
  const hf = await startOpenAIEmulator({ apiKey: 'sk-hf' });
  const texty = await startOpenAIEmulator({ apiKey: 'sk-tx', script: textCallScript });
  const gemini = await startGeminiEmulator();
  const gw = await startGateway({
    yaml: configFor({ hf: { baseUrl: hf.url, apiKey: 'sk-hf' }, texty: { baseUrl: texty.url, apiKey: 'sk-tx' }, gem: { type: 'gemini', baseUrl: gemini.baseUrl, apiKey: gemini.apiKey } }),
    logLevel: 'warn',
  });
  t.teardown(async () => {
    await gw.close();
    await hf.close();
    await texty.close();
    await gemini.close();
  });
  const client = new Anthropic({ baseURL: gw.url, apiKey: 'sk-ant-anything', maxRetries: 0 });

  const models = ['simulator/weather', 'simulator/weather:hermes', 'hf/Qwen/Qwen2.5-72B-Instruct', 'texty/Qwen/Qwen3-8B', 'gem/gemini-2.5-flash', 'gem/gemini-3-flash-preview'];
  for (const model of models) {
    const finals: string[] = [];
    for (const mode of ['create', 'events', 'stream'] as const) {
      const result = await loop(client, model, mode);
      t.equal(result.rounds, 1, `${model} ${mode}: one tool round`);
      t.match(result.final, /21/, `${model} ${mode}: the answer quotes the tool result`);
      for (const message of result.messages) t.same(messageProblems(message), [], `${model} ${mode}: message shape`);
      t.same(eventProblems(result.events), [], `${model} ${mode}: event sequence and shapes`);
      const use = result.messages[0].content.find((block) => block.type === 'tool_use');
      t.same(use && use.type === 'tool_use' ? use.input : undefined, { city: 'Paris' }, `${model} ${mode}: the call's input`);
      finals.push(result.final);
    }
    t.equal(new Set(finals).size, 1, `${model}: JSON, events and stream reach the same answer`);
  }
  // The text-call upstream really wrote text: toolgate turned it into tool_use blocks.
  t.ok(texty.requests.some((r) => Array.isArray(r.body?.messages) && r.body.messages.some((m: any) => m.role === 'tool')), 'texty got the tool results back as tool messages');
  t.ok(gemini.requests.length >= 6, 'Gemini answered the loops');
});
