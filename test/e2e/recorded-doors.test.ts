import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { recordedIndex, startRecordedUpstream, type RecordedEntry } from '../helpers/recorded-upstream.js';

// The recorded provider traffic of test/fixtures/recorded/ (see recorded.test.ts) read through the two
// other doors, with the official SDKs as agents read them: the Responses API (`openai`:
// `responses.create()`, `responses.stream()` + `finalResponse()`) and the Anthropic Messages API
// (`@anthropic-ai/sdk`: `messages.create()`, `messages.stream()` + `finalMessage()`). The same
// expectations as at the chat door, in each door's words: the text, the reasoning (a reasoning item;
// a thinking block), every call's name and arguments (function_call items; tool_use blocks whose
// input is an object) and the finish (the response's status and incomplete reason; the stop reason).
// A recording of the `openai` type is served as an OpenAI-compatible upstream here: toolgate relays
// Responses to OpenAI's own /responses, which a chat recording does not answer.

const upstream = await startRecordedUpstream();
const gateway = await startGateway({
  yaml: configFor({
    compat: { baseUrl: upstream.baseURL, apiKey: 'sk-up' },
    gem: { type: 'gemini', baseUrl: upstream.baseURL, apiKey: 'gm-up' },
  }),
  logLevel: 'warn',
});
t.teardown(async () => {
  await gateway.close();
  await upstream.close();
});
const openai = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 });
const anthropic = new Anthropic({ baseURL: gateway.baseURL.replace(/\/v1$/, ''), apiKey: 'gw', maxRetries: 0 });

const SCHEMA = { type: 'object' as const, properties: {}, additionalProperties: true };
const modelOf = (entry: RecordedEntry): string => `${entry.via === 'gemini' ? 'gem' : 'compat'}/recorded-model`;
const namesOf = (entry: RecordedEntry): string[] => [...new Set(entry.expect.calls.map((call) => call.name))];

/** What the Responses door says for a chat finish reason. */
const RESPONSES_FINISH: Record<string, string> = { stop: 'completed', tool_calls: 'completed', length: 'incomplete:max_output_tokens', content_filter: 'incomplete:content_filter' };
/** What the Messages door says for a chat finish reason. */
const MESSAGES_FINISH: Record<string, string> = { stop: 'end_turn', tool_calls: 'tool_use', length: 'max_tokens', content_filter: 'refusal' };

type OutputItem = OpenAI.Responses.ResponseOutputItem;

function readResponse(response: OpenAI.Responses.Response): unknown {
  const items: OutputItem[] = response.output;
  let text = '';
  let reasoning = '';
  const calls: unknown[] = [];
  for (const item of items) {
    if (item.type === 'message') for (const part of item.content) text += part.type === 'output_text' ? part.text : '';
    if (item.type === 'reasoning') for (const part of item.content ?? []) reasoning += part.text;
    if (item.type === 'function_call') calls.push({ name: item.name, args: JSON.parse(item.arguments) as unknown });
  }
  const finish = response.status === 'incomplete' ? `incomplete:${response.incomplete_details?.reason ?? ''}` : (response.status ?? '');
  return { text, reasoning, calls, finish };
}

function readMessage(message: Anthropic.Message): unknown {
  let text = '';
  let reasoning = '';
  const calls: unknown[] = [];
  for (const block of message.content) {
    if (block.type === 'text') text += block.text;
    if (block.type === 'thinking') reasoning += block.thinking;
    if (block.type === 'tool_use') calls.push({ name: block.name, args: block.input });
  }
  return { text, reasoning, calls, finish: message.stop_reason };
}

function responsesRequest(entry: RecordedEntry) {
  const names = namesOf(entry);
  return {
    model: modelOf(entry),
    input: 'go',
    ...(names.length ? { tools: names.map((name) => ({ type: 'function' as const, name, parameters: SCHEMA, strict: false })) } : {}),
  };
}

function messagesRequest(entry: RecordedEntry) {
  const names = namesOf(entry);
  return {
    model: modelOf(entry),
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: 'go' }],
    ...(names.length ? { tools: names.map((name) => ({ name, input_schema: SCHEMA })) } : {}),
  };
}

for (const entry of recordedIndex()) {
  t.test(`${entry.file} (${entry.source.repository})`, async (t) => {
    const { text, reasoning, calls, finish } = entry.expect;
    const viaResponses = { text, reasoning, calls, finish: RESPONSES_FINISH[finish] };
    const viaMessages = { text, reasoning, calls, finish: MESSAGES_FINISH[finish] };
    upstream.play(entry);
    if (entry.kind === 'json') {
      t.same(readResponse(await openai.responses.create(responsesRequest(entry))), viaResponses, 'Responses, JSON');
      upstream.play(entry);
      t.same(readMessage(await anthropic.messages.create(messagesRequest(entry))), viaMessages, 'Messages, JSON');
      return;
    }
    const responseStream = openai.responses.stream(responsesRequest(entry));
    for await (const event of responseStream) t.not(event.type, 'error', 'no error event');
    t.same(readResponse(await responseStream.finalResponse()), viaResponses, 'Responses, stream');
    upstream.play(entry, 7);
    const messageStream = anthropic.messages.stream(messagesRequest(entry));
    t.same(readMessage(await messageStream.finalMessage()), viaMessages, 'Messages, stream');
  });
}
