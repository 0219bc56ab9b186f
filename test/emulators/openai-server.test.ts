import OpenAI from 'openai';
import t from 'tap';
import { startOpenAIEmulator } from './openai-server.js';
import { validateSchema } from '../helpers/openapi.js';

const KEY = 'sk-test-emulator-0123456789abcdef';
const emu = await startOpenAIEmulator({ apiKey: KEY });
t.teardown(() => emu.close());
const client = new OpenAI({ baseURL: emu.url, apiKey: KEY, maxRetries: 0 });
const MODEL = 'gpt-4o-mini';
const TOOLS = [
  {
    type: 'function' as const,
    function: {
      name: 'get_weather',
      parameters: { type: 'object', properties: { city: { type: 'string' }, unit: { type: 'string', enum: ['c', 'f'] } }, required: ['city', 'unit'] },
    },
  },
  { type: 'function' as const, function: { name: 'other_tool', parameters: { type: 'object', properties: {} } } },
];
const weather = (args: string) => `${JSON.parse(args).city}: 21C, clear`;

/** Raw SSE `data:` payloads of a streamed request, for wire-level assertions. */
async function rawStream(body: Record<string, unknown>): Promise<{ payloads: string[]; headers: Headers }> {
  const res = await fetch(`${emu.url}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODEL, stream: true, ...body }),
  });
  const text = await res.text();
  t.match(text, /\n\n$/);
  return { payloads: text.split('\n\n').filter(Boolean).map((e) => e.replace(/^data: /, '')), headers: res.headers };
}

t.test('non-stream tool loop with the default script, parallel calls', async (t) => {
  const messages: any[] = [{ role: 'user', content: 'What is the weather in Paris and Tokyo?' }];
  const first = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
  t.same(validateSchema('CreateChatCompletionResponse', first), []);
  t.match(first.id, /^chatcmpl-[A-Za-z0-9]{29}$/);
  const choice = first.choices[0];
  t.equal(choice.finish_reason, 'tool_calls');
  t.equal(choice.message.content, null);
  const calls = choice.message.tool_calls as any[];
  t.equal(calls.length, 2, 'one call per city');
  t.same(calls.map((c) => JSON.parse(c.function.arguments)), [{ city: 'Paris', unit: 'c' }, { city: 'Tokyo', unit: 'c' }]);
  t.ok(calls.every((c) => /^call_[A-Za-z0-9]{24}$/.test(c.id) && c.function.name === 'get_weather'));
  t.not(calls[0].id, calls[1].id, 'distinct call ids');
  t.ok(first.usage && first.usage.total_tokens === first.usage.prompt_tokens + first.usage.completion_tokens);
  messages.push(choice.message, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: weather(c.function.arguments) })));
  const second = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS });
  t.same(validateSchema('CreateChatCompletionResponse', second), []);
  t.equal(second.choices[0].finish_reason, 'stop');
  t.match(second.choices[0].message.content, /Paris: 21C, clear.*Tokyo: 21C, clear/);
  t.equal(second.id === first.id, false, 'distinct completion ids');
});

t.test('parallel_tool_calls false, tool_choice none and a named tool_choice', async (t) => {
  const messages = [{ role: 'user' as const, content: 'weather in Oslo, Rome and Lima' }];
  const single = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS, parallel_tool_calls: false });
  t.equal(single.choices[0].message.tool_calls?.length, 1);
  const none = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS, tool_choice: 'none' });
  t.equal(none.choices[0].finish_reason, 'stop');
  const named = await client.chat.completions.create({ model: MODEL, messages, tools: TOOLS, tool_choice: { type: 'function', function: { name: 'other_tool' } } });
  const calls = named.choices[0].message.tool_calls as any[];
  t.same(calls.map((c) => [c.function.name, c.function.arguments]), [['other_tool', '{}']], 'a tool without parameters is called once with {}');
});

t.test('stream tool loop through the SDK stream helper', async (t) => {
  const messages: any[] = [{ role: 'user', content: 'weather in Paris and Tokyo?' }];
  const stream = client.chat.completions.stream({ model: MODEL, messages, tools: TOOLS });
  const chunks: any[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const done = await stream.finalChatCompletion();
  const calls = done.choices[0].message.tool_calls as any[];
  t.same(calls.map((c) => JSON.parse(c.function.arguments).city), ['Paris', 'Tokyo'], 'the SDK reassembles both calls');
  for (const chunk of chunks) t.same(validateSchema('CreateChatCompletionStreamResponse', chunk), [], 'chunk matches the spec');
  messages.push(done.choices[0].message, ...calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: weather(c.function.arguments) })));
  const answer = client.chat.completions.stream({ model: MODEL, messages, tools: TOOLS });
  const text = await answer.finalContent();
  t.match(text, /Paris: 21C, clear; Tokyo: 21C, clear/);
});

t.test('the SSE wire looks like OpenAI’s', async (t) => {
  const { payloads, headers } = await rawStream({ messages: [{ role: 'user', content: 'weather in Paris and Tokyo?' }], tools: TOOLS });
  t.match(headers.get('content-type'), /^text\/event-stream/);
  t.equal(payloads[payloads.length - 1], '[DONE]');
  const chunks = payloads.slice(0, -1).map((p) => JSON.parse(p));
  t.same(chunks[0].choices[0].delta, { role: 'assistant', content: '', refusal: null }, 'first chunk: role and empty content');
  t.ok(chunks.every((c) => c.id === chunks[0].id && c.object === 'chat.completion.chunk' && !('usage' in c)), 'one id, no usage key');
  const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
  const headersOnly = deltas.filter((d) => d.id);
  t.same(headersOnly.map((d) => [d.index, d.type, d.function.name, d.function.arguments]), [[0, 'function', 'get_weather', ''], [1, 'function', 'get_weather', '']]);
  for (const index of [0, 1]) {
    const frags = deltas.filter((d) => d.index === index && !d.id).map((d) => d.function.arguments);
    t.ok(frags.length > 2, `call ${index}: arguments in several chunks`);
    t.ok(frags.some((f) => { try { JSON.parse(f); return false; } catch { return true; } }), 'split mid-JSON');
    t.same(JSON.parse(frags.join('')).city, index === 0 ? 'Paris' : 'Tokyo');
  }
  const last = chunks[chunks.length - 1];
  t.same(last.choices[0], { index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' });
});

t.test('include_usage: usage null on every chunk, then a choices:[] usage chunk', async (t) => {
  const { payloads } = await rawStream({ messages: [{ role: 'user', content: 'hello there' }], stream_options: { include_usage: true } });
  const chunks = payloads.slice(0, -1).map((p) => JSON.parse(p));
  const usageChunk = chunks.pop();
  t.same(usageChunk.choices, []);
  t.ok(usageChunk.usage.total_tokens > 0);
  t.ok(chunks.every((c) => c.usage === null));
  t.equal(chunks.map((c) => c.choices[0].delta.content ?? '').join(''), 'You said: hello there');
  for (const c of [...chunks, usageChunk]) t.same(validateSchema('CreateChatCompletionStreamResponse', c), []);
  const viaSdk = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
  let usage: any = null;
  for await (const c of viaSdk) if (c.usage) usage = c.usage;
  t.ok(usage?.prompt_tokens > 0, 'the SDK surfaces the usage chunk');
});

t.test('auth: missing and wrong keys answer like OpenAI, with the key masked', async (t) => {
  const wrong = new OpenAI({ baseURL: emu.url, apiKey: 'sk-proj-wrongwrongwrong1234', maxRetries: 0 });
  const err: any = await wrong.models.list().catch((e) => e);
  t.equal(err.status, 401);
  t.equal(err.error.code, 'invalid_api_key');
  t.equal(err.error.message, 'Incorrect API key provided: sk-proj-***************1234. You can find your API key at https://platform.openai.com/account/api-keys.');
  const res = await fetch(`${emu.url}/chat/completions`, { method: 'POST', body: '{}' });
  t.equal(res.status, 401);
  t.match(((await res.json()) as any).error.message, /^You didn't provide an API key\./);
});

t.test('bad bodies are refused with the rules’ 400 and never reach the script', async (t) => {
  const calls = emu.calls;
  const err: any = await client.chat.completions
    .create({ model: MODEL, messages: [{ role: 'user', content: 'x' }, { role: 'tool', tool_call_id: 'call_1', content: 'y' }] })
    .catch((e) => e);
  t.equal(err.status, 400);
  t.equal(err.error.message, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.");
  t.equal(err.error.param, 'messages.[1].role');
  const bad = await fetch(`${emu.url}/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: '{"model":' });
  t.equal(bad.status, 400);
  t.match(((await bad.json()) as any).error.message, /^We could not parse the JSON body of your request\./);
  t.equal(emu.calls, calls, 'the script was not called');
  const last = emu.requests[emu.requests.length - 1];
  t.same([last.method, last.path, last.body], ['POST', '/v1/chat/completions', '{"model":'], 'even unparsable requests are recorded');
});

t.test('scripts: text, errors, raw replies, call indexes, recorded requests', async (t) => {
  const seen: number[] = [];
  emu.setScript((body, i) => {
    seen.push(i);
    if (i % 3 === 0) return { text: `call ${i} for ${body.model}` };
    if (i % 3 === 1) return { error: { status: 429, body: { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } } } };
    return { raw: { status: 200, headers: { 'content-type': 'application/json' }, body: '{"not":"a completion"}' } };
  });
  t.teardown(() => emu.setScript(undefined));
  const start = emu.calls;
  const before = emu.requests.length;
  const ask = () => client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
  const results = [await ask().catch((e) => e), await ask().catch((e) => e), await ask().catch((e) => e)];
  const byIndex = new Map(seen.map((i, n) => [i, results[n]]));
  for (const [i, r] of byIndex) {
    if (i % 3 === 0) t.equal(r.choices[0].message.content, `call ${i} for ${MODEL}`);
    if (i % 3 === 1) t.equal(r.status, 429);
    if (i % 3 === 2) t.same(r, { not: 'a completion' });
  }
  t.same(seen, [start, start + 1, start + 2]);
  const sent = emu.requests.slice(before);
  t.equal(sent.length, 3);
  t.equal(sent[0].body.model, MODEL);
  t.equal(sent[0].headers.authorization, `Bearer ${KEY}`);
});

t.test('GET /v1/models, unknown models and unknown routes', async (t) => {
  const list = await client.models.list();
  t.ok(list.data.length > 0);
  const raw = await (await fetch(`${emu.url}/models`, { headers: { authorization: `Bearer ${KEY}` } })).json();
  t.same(validateSchema('ListModelsResponse', raw), []);
  t.same(validateSchema('Model', await client.models.retrieve('gpt-4o')), []);
  const missing: any = await client.models.retrieve('gpt-9').catch((e) => e);
  t.equal(missing.status, 404);
  t.equal(missing.error.message, 'The model `gpt-9` does not exist or you do not have access to it.');
  const route = await fetch(`${emu.url}/foo`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` } });
  t.equal(route.status, 404);
  t.equal(((await route.json()) as any).error.message, 'Invalid URL (POST /v1/foo)');
  const strict = await startOpenAIEmulator({ models: ['m1'], enforceModels: true });
  t.teardown(() => strict.close());
  const res = await fetch(`${strict.url}/chat/completions`, { method: 'POST', body: JSON.stringify({ model: 'm2', messages: [{ role: 'user', content: 'x' }] }) });
  t.equal(res.status, 404);
});

t.test('chunkDelayMs slows the stream, and a client abort is survived', async (t) => {
  const slow = await startOpenAIEmulator({ chunkDelayMs: 40 });
  t.teardown(() => slow.close());
  const c = new OpenAI({ baseURL: slow.url, apiKey: 'any', maxRetries: 0 });
  const started = Date.now();
  const stream = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'one two three four five six' }], stream: true });
  let n = 0;
  for await (const _ of stream) n++;
  t.ok(Date.now() - started >= (n - 1) * 40 - 20, `${n} chunks spaced by the delay`);
  const controller = new AbortController();
  const aborted = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'a b c d e f g h' }], stream: true }, { signal: controller.signal });
  let seen = 0;
  await (async () => {
    for await (const _ of aborted) {
      seen++;
      controller.abort();
    }
  })().catch(() => undefined);
  t.ok(seen < n, 'the client stopped reading mid-stream');
  const after = await c.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'still alive?' }] });
  t.equal(after.choices[0].message.content, 'You said: still alive?');
});
