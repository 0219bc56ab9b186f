import OpenAI from 'openai';
import t from 'tap';
import { configFor, startGateway } from '../helpers/gateway.js';
import { recordedIndex, startRecordedUpstream, type RecordedEntry } from '../helpers/recorded-upstream.js';

// Real provider traffic (test/fixtures/recorded/, provenance in its index.json), replayed through
// toolgate as the upstream of the provider type that speaks it, and read as an agent reads it: the
// official `openai` SDK, `chat.completions.create()` for a JSON recording, `chat.completions.stream()`
// and `finalChatCompletion()` for a recorded stream (sent whole, then split into reads at arbitrary
// byte offsets). Each recording's `expect` says what the provider answered, read from the recording
// by hand as the provider documents its fields (content, reasoning_content / reasoning / thinking
// parts, tool_calls, finish_reason): the text, the reasoning, every tool call's name and parsed
// arguments, and the finish reason. toolgate may reshape, never lose or change any of it.

const upstream = await startRecordedUpstream();
const gateway = await startGateway({
  yaml: configFor({
    compat: { baseUrl: upstream.baseURL, apiKey: 'sk-up' },
    oai: { type: 'openai', baseUrl: upstream.baseURL, apiKey: 'sk-up' },
    gem: { type: 'gemini', baseUrl: upstream.baseURL, apiKey: 'gm-up' },
  }),
  logLevel: 'warn',
});
t.teardown(async () => {
  await gateway.close();
  await upstream.close();
});
const client = new OpenAI({ baseURL: gateway.baseURL, apiKey: 'gw', maxRetries: 0 });

const PREFIX = { 'openai-compatible': 'compat', openai: 'oai', gemini: 'gem' } as const;
const SCHEMA = { type: 'object', properties: {}, additionalProperties: true };

type Json = Record<string, unknown>;

function reasoningOf(holder: Json): string {
  if (typeof holder.reasoning_content === 'string') return holder.reasoning_content;
  if (typeof holder.reasoning === 'string') return holder.reasoning;
  return '';
}

const callsOf = (calls: ReadonlyArray<{ function: { name: string; arguments: string } }> | undefined): unknown[] =>
  (calls ?? []).map((call) => ({ name: call.function.name, args: JSON.parse(call.function.arguments) as unknown }));

function request(entry: RecordedEntry) {
  const names = [...new Set(entry.expect.calls.map((call) => call.name))];
  return {
    model: `${PREFIX[entry.via ?? 'openai-compatible']}/recorded-model`,
    messages: [{ role: 'user' as const, content: 'go' }],
    ...(names.length ? { tools: names.map((name) => ({ type: 'function' as const, function: { name, parameters: SCHEMA } })) } : {}),
  };
}

async function viaStream(entry: RecordedEntry): Promise<unknown> {
  const stream = client.chat.completions.stream({ ...request(entry), stream_options: { include_usage: true } });
  let reasoning = '';
  for await (const chunk of stream) for (const choice of chunk.choices) reasoning += reasoningOf(choice.delta as unknown as Json);
  const choice = (await stream.finalChatCompletion()).choices[0];
  return { text: choice.message.content ?? '', reasoning, calls: callsOf(choice.message.tool_calls as never), finish: choice.finish_reason };
}

async function viaJson(entry: RecordedEntry): Promise<unknown> {
  const choice = (await client.chat.completions.create(request(entry))).choices[0];
  return { text: choice.message.content ?? '', reasoning: reasoningOf(choice.message as unknown as Json), calls: callsOf(choice.message.tool_calls as never), finish: choice.finish_reason };
}

const index = recordedIndex();
t.ok(new Set(index.map((entry) => entry.provider)).size >= 17, 'at least 17 providers');
t.ok(index.length >= 42, 'at least 42 exchanges');

for (const entry of index) {
  t.test(`${entry.file} (${entry.source.repository})`, async (t) => {
    const expected = { text: entry.expect.text, reasoning: entry.expect.reasoning, calls: entry.expect.calls, finish: entry.expect.finish };
    if (entry.kind === 'json') {
      upstream.play(entry);
      t.same(await viaJson(entry), expected, 'JSON: the answer as recorded');
      return;
    }
    for (const pieces of [1, 7]) {
      upstream.play(entry, pieces);
      t.same(await viaStream(entry), expected, `stream in ${pieces} read(s): the answer as recorded`);
    }
  });
}
