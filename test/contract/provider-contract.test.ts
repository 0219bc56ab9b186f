import t from 'tap';
import type { ChatChunk, ChatRequest } from '../../src/api/chat-types.js';
import { GatewayError } from '../../src/errors.js';
import { callContext, HARNESSES, type Harness } from './harnesses.js';

// The shared provider contract: every adapter, fed the same normalized chat requests, returns the
// same normalized shapes — JSON and SSE, tool calls, history round trips and errors. Quirks stay
// inside the adapters; this suite is the proof.

const WEATHER = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

function request(content: string, extra: Partial<ChatRequest> = {}): ChatRequest {
  return { model: 'contract', messages: [{ role: 'user', content }], tools: [WEATHER], ...extra };
}

async function collect(chunks: AsyncIterable<ChatChunk>) {
  const all: ChatChunk[] = [];
  let content = '';
  let finish: string | null = null;
  const calls: Array<{ id: string; name: string; args: string }> = [];
  for await (const chunk of chunks) {
    all.push(chunk);
    const choice = chunk.choices[0];
    if (!choice) continue;
    if (typeof choice.delta.content === 'string') content += choice.delta.content;
    for (const d of choice.delta.tool_calls ?? []) {
      calls[d.index] ??= { id: '', name: '', args: '' };
      if (d.id) calls[d.index].id = d.id;
      if (d.function?.name) calls[d.index].name += d.function.name;
      if (d.function?.arguments) calls[d.index].args += d.function.arguments;
    }
    if (choice.finish_reason) finish = choice.finish_reason;
  }
  return { all, content, finish, calls };
}

async function expectError(t: any, promise: Promise<unknown>, status: number, message?: RegExp) {
  try {
    await promise;
    t.fail(`expected an error with status ${status}`);
  } catch (error) {
    t.type(error, GatewayError, 'a catalogue error');
    t.equal((error as GatewayError).status, status, `status ${status}`);
    if (message) t.match((error as GatewayError).message, message);
    t.ok((error as GatewayError).toBody().error.type, 'OpenAI-shaped');
  }
}

for (const makeHarness of HARNESSES) {
  const h: Harness = await makeHarness();
  t.teardown(() => h.close());

  t.test(`${h.name}: every adapter`, async (t) => {
    t.test('JSON tool call for a weather prompt, then an answer that uses the result', async (t) => {
      const first = await h.adapter.complete(request('What is the weather in Paris and Rome?'), callContext(h.upstreamModel));
      t.equal(first.object, 'chat.completion');
      t.type(first.id, 'string');
      const message = first.choices[0].message;
      t.equal(first.choices[0].finish_reason, 'tool_calls');
      t.equal(message.tool_calls?.length, 2, 'parallel calls');
      const ids = message.tool_calls!.map((c) => c.id);
      t.equal(new Set(ids).size, 2, 'distinct ids');
      t.same(message.tool_calls!.map((c) => JSON.parse(c.function.arguments).city), ['Paris', 'Rome']);
      t.ok(first.usage && first.usage.prompt_tokens > 0 && first.usage.total_tokens >= first.usage.prompt_tokens, 'usage');

      const followUp = request('What is the weather in Paris and Rome?');
      followUp.messages.push({ role: 'assistant', content: null, tool_calls: message.tool_calls });
      for (const call of message.tool_calls!) {
        followUp.messages.push({ role: 'tool', tool_call_id: call.id, content: `{"city":"${JSON.parse(call.function.arguments).city}","temp_c":20}` });
      }
      const second = await h.adapter.complete(followUp, callContext(h.upstreamModel));
      t.equal(second.choices[0].finish_reason, 'stop');
      t.match(second.choices[0].message.content, /Paris/);
      t.match(second.choices[0].message.content, /Rome/);
    });

    t.test('SSE tool call deltas assemble to the same calls, indexes stable, finish tool_calls', async (t) => {
      const stream = await h.adapter.stream(request('Weather in Oslo and Bergen?', { stream: true }), callContext(h.upstreamModel));
      const got = await collect(stream);
      t.equal(got.finish, 'tool_calls');
      t.equal(got.calls.length, 2);
      t.same(got.calls.map((c) => JSON.parse(c.args).city), ['Oslo', 'Bergen']);
      t.ok(got.calls.every((c) => c.id && c.name === 'get_weather'), 'ids and full names');
      for (const chunk of got.all) t.equal(chunk.object, 'chat.completion.chunk');
    });

    t.test('SSE usage chunk only when include_usage is asked', async (t) => {
      const asked = await collect(await h.adapter.stream(request('hello', { stream: true, tools: undefined, stream_options: { include_usage: true } }), callContext(h.upstreamModel)));
      const usageChunk = asked.all.find((c) => c.choices.length === 0 && c.usage);
      t.ok(usageChunk?.usage && usageChunk.usage.total_tokens > 0, 'usage chunk');
      t.equal(asked.finish, 'stop');
      const notAsked = await collect(await h.adapter.stream(request('hello', { stream: true, tools: undefined }), callContext(h.upstreamModel)));
      t.notOk(notAsked.all.some((c) => c.choices.length === 0), 'no usage-only chunk');
    });
  });

  if (!h.script) continue;
  const script = h.script;

  t.test(`${h.name}: wire contract`, async (t) => {
    t.afterEach(async () => script.reset());

    t.test('exact text, JSON and SSE', async (t) => {
      script.text('Bonjour, monde — ünïcödé ✓');
      const json = await h.adapter.complete(request('hi', { tools: undefined }), callContext(h.upstreamModel));
      t.equal(json.choices[0].message.content, 'Bonjour, monde — ünïcödé ✓');
      t.equal(json.choices[0].finish_reason, 'stop');
      t.notOk(json.choices[0].message.tool_calls?.length);
      const sse = await collect(await h.adapter.stream(request('hi', { tools: undefined, stream: true }), callContext(h.upstreamModel)));
      t.equal(sse.content, 'Bonjour, monde — ünïcödé ✓');
      t.equal(sse.finish, 'stop');
    });

    t.test('scripted tool calls with nested arguments, JSON and SSE', async (t) => {
      const args = { city: 'Zürich', options: { units: 'metric', days: 3, flags: [true, false] } };
      script.toolCalls([{ name: 'get_weather', args }]);
      const json = await h.adapter.complete(request('x'), callContext(h.upstreamModel));
      t.same(JSON.parse(json.choices[0].message.tool_calls![0].function.arguments), args);
      t.equal(json.choices[0].message.tool_calls![0].type, 'function');
      const sse = await collect(await h.adapter.stream(request('x', { stream: true }), callContext(h.upstreamModel)));
      t.same(JSON.parse(sse.calls[0].args), args);
      t.equal(sse.finish, 'tool_calls');
    });

    for (const status of [400, 429, 503]) {
      t.test(`upstream ${status} → same status, upstream message kept (JSON and SSE)`, async (t) => {
        script.error(status, `emulated failure ${status}`);
        await expectError(t, h.adapter.complete(request('x'), callContext(h.upstreamModel)), status, new RegExp(`emulated failure ${status}`));
        await expectError(t, h.adapter.stream(request('x', { stream: true }), callContext(h.upstreamModel)), status, new RegExp(`emulated failure ${status}`));
      });
    }

    t.test('no first byte within timeoutMs → 504', async (t) => {
      script.hang();
      await expectError(t, h.adapter.complete(request('x'), callContext(h.upstreamModel)), 504);
    });

    t.test('client abort cancels the call', async (t) => {
      script.hang();
      const controller = new AbortController();
      const pending = h.adapter.complete(request('x'), callContext(h.upstreamModel, controller.signal));
      setTimeout(() => controller.abort(), 50);
      await t.rejects(pending);
    });

    t.test('unreachable upstream → 502', async (t) => {
      await expectError(t, h.unreachable!.complete(request('x'), callContext(h.upstreamModel)), 502);
    });
  });
}
