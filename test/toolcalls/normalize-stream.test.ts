import t from 'tap';
import type { ChatChunk, ChatCompletion, ChunkDelta, FinishReason } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { normalizeStream } from '../../src/toolcalls/normalize-stream.js';
import { TOOLS, normalizeContext } from './helpers.js';

const USAGE: ChatChunk = { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } };

function chunk(delta: ChunkDelta, finish: FinishReason | null = null): ChatChunk {
  return { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }] };
}

async function* from(chunks: ChatChunk[]): AsyncGenerator<ChatChunk> {
  for (const c of chunks) yield c;
}

async function collect(iterable: AsyncIterable<ChatChunk>): Promise<ChatChunk[]> {
  const out: ChatChunk[] = [];
  for await (const c of iterable) out.push(c);
  return out;
}

/** Accumulates chunks the way client SDKs do. */
function accumulate(chunks: ChatChunk[]) {
  let content = '';
  let finish: FinishReason | null = null;
  const calls: Array<{ id?: string; type?: string; name: string; arguments: string }> = [];
  for (const c of chunks) {
    for (const choice of c.choices) {
      content += choice.delta.content ?? '';
      if (choice.finish_reason) finish = choice.finish_reason;
      for (const d of choice.delta.tool_calls ?? []) {
        const call = (calls[d.index] ??= { name: '', arguments: '' });
        if (d.id) call.id = d.id;
        if (d.type) call.type = d.type;
        call.name += d.function?.name ?? '';
        call.arguments += d.function?.arguments ?? '';
      }
    }
  }
  return { content, finish, calls };
}

function textStream(text: string, sizes: number[]): ChatChunk[] {
  const chunks = [chunk({ role: 'assistant', content: '' })];
  let at = 0;
  for (let i = 0; at < text.length; i++) {
    const size = sizes[i % sizes.length];
    chunks.push(chunk({ content: text.slice(at, at + size) }));
    at += size;
  }
  chunks.push(chunk({}, 'stop'), USAGE);
  return chunks;
}

t.test('native tool-call stream passes through as the same objects', async (t) => {
  const input = [
    chunk({ role: 'assistant', content: null }),
    chunk({ tool_calls: [{ index: 0, id: 'call_abcdefghijklmnopqrstuvwx', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '"SF"}' } }] }),
    chunk({}, 'tool_calls'),
    USAGE,
  ];
  const normalized = normalizeStream(from(input), normalizeContext());
  const out = await collect(normalized.chunks);
  t.equal(out.length, input.length);
  out.forEach((c, i) => t.equal(c, input[i], `chunk ${i} is the same object`));
  t.same(normalized.report, { mode: 'native', toolCalls: 1, aliased: [], unknownNames: 0, invalidArguments: 0, repairedArguments: 0, malformedCalls: 0 });
});

t.test('plain text stream: prose flows, chunks unchanged', async (t) => {
  const input = textStream('It is sunny in San Francisco today.', [4]);
  const out = await collect(normalizeStream(from(input), normalizeContext()).chunks);
  t.equal(accumulate(out).content, 'It is sunny in San Francisco today.');
  t.equal(accumulate(out).finish, 'stop');
  t.ok(out.filter((c, i) => c === input[i]).length >= input.length - 3, 'nearly every chunk is passed as is');
  t.equal(out[out.length - 1], USAGE);
});

t.test('text calls become tool_call deltas; streamed = non-streamed', async (t) => {
  const texts = [
    'Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "SF", "days": "2"}}</tool_call>\n<tool_call>{"name": "functions.get_time", "arguments": {}}</tool_call>',
    "[get_weather(city='Oslo'), get_time()]",
    'Sure:\n```json\n{"name": "search_procedure", "arguments": {"query": "reset"}}\n```',
    'No calls here, just <b>prose</b> and [brackets].',
  ];
  for (const text of texts) {
    const expected = normalizeCompletion(
      { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }] } as ChatCompletion,
      normalizeContext(),
    );
    const message = expected.completion.choices[0].message;
    for (const sizes of [[1], [3, 1, 7], [5], [1000]]) {
      const normalized = normalizeStream(from(textStream(text, sizes)), normalizeContext());
      const out = await collect(normalized.chunks);
      const got = accumulate(out);
      t.equal(got.content, message.content === null ? '' : message.tool_calls ? message.content : message.content.trim(), `content, sizes ${sizes}`);
      t.same(got.calls.map((c) => [c.type, c.name, c.arguments]), (message.tool_calls ?? []).map((c) => ['function', c.function.name, c.function.arguments]));
      for (const c of got.calls) t.match(c.id, /^call_[A-Za-z0-9]{24}$/);
      t.equal(got.finish, expected.completion.choices[0].finish_reason);
      t.same({ ...normalized.report }, expected.report, 'same report');
      const headers = out.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []).filter((d) => d.id);
      for (const h of headers) t.same([h.type, h.function?.arguments], ['function', ''], 'first delta: id, type, full name, arguments ""');
      t.equal(out[out.length - 1], USAGE, 'usage chunk last, unchanged');
      const last = out[out.length - 2];
      t.equal(last.choices[0].finish_reason, got.finish, 'finish_reason on the last choice chunk');
    }
  }
});

t.test('native names: decoded, aliased, buffered until complete; ids and indexes fixed', async (t) => {
  const input = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_0', type: 'function', function: { name: 'tool_search_', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { name: 'procedure' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"query":"a"}' } }] }),
    chunk({ tool_calls: [{ index: 0, id: 'call_0_b', type: 'function', function: { name: 'get_time', arguments: '{}' } }] }),
    chunk({}, 'stop'),
  ];
  const normalized = normalizeStream(from(input), normalizeContext());
  const got = accumulate(await collect(normalized.chunks));
  t.same(got.calls.map((c) => [c.name, c.arguments]), [['search_procedure', '{"query":"a"}'], ['get_time', '{}']]);
  t.not(got.calls[0].id, 'call_0', 'placeholder id replaced');
  t.equal(got.calls[1].id, 'call_0_b');
  t.equal(got.finish, 'tool_calls');
  t.same(normalized.report.aliased, [{ from: 'tool_search_procedure', to: 'search_procedure', how: 'normalized' }]);
  t.equal(normalized.report.toolCalls, 2);
});

t.test('a stream that ends without finish_reason is still flushed', async (t) => {
  const input = [chunk({ content: 'Hi <tool_call>{"name": "get_time", "arguments": {}}' })];
  const got = accumulate(await collect(normalizeStream(from(input), normalizeContext()).chunks));
  t.equal(got.content, 'Hi ');
  t.same(got.calls.map((c) => c.name), ['get_time']);
  t.equal(got.finish, 'tool_calls');
});

t.test('no tools declared: every chunk passes as is', async (t) => {
  const input = textStream('<tool_call>{"name": "get_time", "arguments": {}}</tool_call>', [3]);
  const out = await collect(normalizeStream(from(input), normalizeContext([])).chunks);
  t.same(out.length, input.length);
  out.forEach((c, i) => t.equal(c, input[i]));
});

t.test('invalid native arguments are reported at the end', async (t) => {
  const input = [chunk({ tool_calls: [{ index: 0, id: 'call_abcdefghijklmnopqrstuvwx', type: 'function', function: { name: 'get_weather', arguments: '{"days": 1}' } }] }), chunk({}, 'tool_calls')];
  const normalized = normalizeStream(from(input), normalizeContext(TOOLS));
  await collect(normalized.chunks);
  t.equal(normalized.report.invalidArguments, 1);
});

t.test('argument fragments: passed as the same objects, joined for the report; a renumbered call\'s fragments move to its index', async (t) => {
  const input = [
    chunk({ tool_calls: [{ index: 0, id: 'call_abcdefghijklmnopqrstuvwx', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"days":' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ' 1}' } }] }),
    // A second call on the same upstream index (some upstreams number parallel calls all 0): client index 1.
    chunk({ tool_calls: [{ index: 0, id: 'call_bcdefghijklmnopqrstuvwxy', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{}' } }] }),
    chunk({}, 'tool_calls'),
  ];
  const normalized = normalizeStream(from(input), normalizeContext(TOOLS));
  const out = await collect(normalized.chunks);
  t.equal(out[1], input[1], 'a fragment of a call on its own index is the same object');
  t.equal(out[2], input[2]);
  t.not(out[4], input[4], 'a fragment of a renumbered call is rewritten');
  t.same(out[4].choices[0].delta.tool_calls, [{ index: 1, function: { arguments: '{}' } }]);
  t.same(accumulate(out).calls.map((c) => [c.name, c.arguments]), [['get_weather', '{"days": 1}'], ['get_time', '{}']]);
  t.equal(normalized.report.invalidArguments, 1, 'the joined fragments of get_weather break its schema');
});
