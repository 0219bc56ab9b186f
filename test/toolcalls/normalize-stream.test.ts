import t from 'tap';
import { settledHeap } from '../helpers/heap.js';
import type { ChatChunk, ChatCompletion, ChunkDelta, FinishReason } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import { TOOLS, normalizeContext, normalizeStream } from './helpers.js';

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
  t.same(normalized.report, { mode: 'native', toolCalls: 1, aliased: [], unknownNames: 0, invalidArguments: 0, repairedArguments: 0, malformedCalls: 0, unchecked: [], cutOff: false });
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

// The chat path hands the normalizer a batch (the chunks of one upstream read) and gets the batch
// itself back when nothing in it changed: no array per read. Batched, it must do exactly what it
// does chunk by chunk: same chunks (the same objects where unchanged), same report, same end.
t.test('pushAll: a batch gives what push gives chunk by chunk, and is the same array when nothing changed', async (t) => {
  const call = (index: number, id: string, name: string): ChatChunk => chunk({ tool_calls: [{ index, id, type: 'function', function: { name, arguments: '' } }] });
  const fragment = (index: number, args: string): ChatChunk => chunk({ tool_calls: [{ index, function: { arguments: args } }] });
  const twoChoices: ChatChunk = { ...chunk({ content: 'a' }), choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }, { index: 1, delta: { content: '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>' }, finish_reason: null }] };
  const streams: Array<[string, ChatChunk[]]> = [
    ['prose', textStream('It is sunny in Paris today, and the wind is low.', [1, 4, 7])],
    ['text call', textStream('Let me check. <tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call> Done.', [2, 5, 9])],
    ['text call cut off', textStream('Hi <tool_call>{"name": "get_time", "arguments": {}', [3])],
    ['native', [chunk({ role: 'assistant', content: null }), call(0, 'call_abcdefghijklmnopqrstuvwx', 'get_weather'), fragment(0, '{"city":'), fragment(0, '"Paris"}'), chunk({}, 'tool_calls'), USAGE]],
    ['native name in pieces, renumbered', [call(0, 'call_0', 'tool_search_'), chunk({ tool_calls: [{ index: 0, function: { name: 'procedure' } }] }), fragment(0, '{"query":"a"}'), call(0, 'call_0_b', 'get_time'), fragment(0, '{}'), chunk({}, 'stop')]],
    ['several choices', [chunk({ role: 'assistant', content: '' }), twoChoices, chunk({ content: 'b' }), chunk({}, 'stop'), USAGE]],
  ];
  for (const [name, input] of streams) {
    for (const tools of [TOOLS, []]) {
      const one = createStreamNormalizer(normalizeContext(tools));
      const expected: ChatChunk[] = [];
      for (const c of input) one.push(c, expected);
      one.end(expected);
      for (const size of [1, 2, 3, input.length]) {
        const batched = createStreamNormalizer(normalizeContext(tools));
        const got: ChatChunk[] = [];
        let sameArrays = 0;
        let batches = 0;
        for (let at = 0; at < input.length; at += size) {
          const batch = input.slice(at, at + size);
          batches++;
          const out = batched.pushAll(batch);
          if (out === batch) {
            sameArrays++;
            t.ok(
              out.every((c, i) => c === input[at + i]),
              'the same array only with every chunk unchanged',
            );
          }
          got.push(...out);
        }
        batched.end(got);
        const label = `${name}, ${tools.length} tools, batches of ${size}`;
        t.same(withoutNewIds(got, input), withoutNewIds(expected, input), `${label}: the same chunks (ids the gateway made aside)`);
        t.ok(got.every((c, i) => (input.includes(c) ? c === expected[i] : !input.includes(expected[i]))), `${label}: unchanged chunks are the same objects`);
        t.same({ ...batched.report }, { ...one.report }, `${label}: the same report`);
        // Without tools every chunk passes (where each choice's first delta has the role and calls are numbered 0..n-1);
        // with them, prose tokens the scanner lets through at once do.
        if (tools.length === 0 && !['several choices', 'native name in pieces, renumbered'].includes(name)) t.equal(sameArrays, batches, `${label}: every batch handed back as it is`);
        else if (name === 'prose' && size < input.length) t.ok(sameArrays > 0, `${label}: batches of prose tokens handed back as they are`);
      }
    }
  }
});

/** The chunks with the call ids the gateway made (random, not in `input`) replaced by one mark. */
function withoutNewIds(chunks: ChatChunk[], input: ChatChunk[]): unknown {
  const upstreamIds = new Set(input.flatMap((c) => c.choices.flatMap((choice) => (choice.delta.tool_calls ?? []).map((d) => d.id))));
  return JSON.parse(JSON.stringify(chunks, (key, value: unknown) => (key === 'id' && typeof value === 'string' && value.startsWith('call_') && !upstreamIds.has(value) ? 'call_new' : value)));
}

// A call's arguments arrive a fragment at a time and are kept for the report until the stream
// ends. Joined with += they were a rope node and a string per fragment (~60 bytes for a
// 6-character fragment); now flat blocks. Counted in heap bytes after a full GC, not timed.
t.test('a native call streamed in many fragments holds about its characters', async (t) => {
  const normalizers = 40;
  const fragments = 1000;
  // Fragments made ahead (the chunks are dropped after each push, as the pipeline drops them).
  const pieces = Array.from({ length: fragments }, (_, i) => `${i % 10}`.padEnd(6, 'y'));
  const streamed = () => {
    const normalizer = createStreamNormalizer(normalizeContext(TOOLS));
    const out: ChatChunk[] = [];
    normalizer.push(chunk({ tool_calls: [{ index: 0, id: 'call_abcdefghijklmnopqrstuvwx', type: 'function', function: { name: 'write_file', arguments: '{"path":"a","content":"' } }] }), out);
    for (const piece of pieces) {
      out.length = 0;
      // A string of its own per fragment, as each event's would be.
      normalizer.push(chunk({ tool_calls: [{ index: 0, function: { arguments: ` ${piece}`.slice(1) } }] }), out);
    }
    return normalizer;
  };
  // What the second batch of open streams adds: what the first batch cost once (the code it compiled,
  // more of it under c8's coverage, its type feedback, a grown table) is not what a stream holds.
  const kept = [];
  for (let n = 0; n < normalizers; n++) kept.push(streamed());
  const before = await settledHeap();
  for (let n = 0; n < normalizers; n++) kept.push(streamed());
  const held = ((await settledHeap()) - before) / normalizers;
  for (const normalizer of kept) normalizer.end([]);
  t.equal(kept.length, 2 * normalizers);
  t.ok(held < fragments * 24, `${Math.round(held)} bytes held per stream for ${fragments} fragments of 6 characters`);
});

// A stream holds its normalizer until it ends: it kept the last chunk it saw (for the id, created
// and model end() copies), and with it the chunk's choices and the upstream text it remembers.
t.test('a normalizer does not keep the last chunk, only what end() copies from it', async (t) => {
  const normalizer = createStreamNormalizer(normalizeContext(TOOLS));
  let seen: WeakRef<object> | undefined;
  const push = (): void => {
    const last = { ...chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } }] }), id: 'c2', created: 2, model: 'm2', system_fingerprint: 'fp' };
    seen = new WeakRef(last);
    normalizer.push(last, []);
  };
  normalizer.push(chunk({ content: 'Looking it up.' }), []);
  push();
  await settledHeap();
  t.equal(seen?.deref(), undefined, 'the last chunk was collected');
  const out: ChatChunk[] = [];
  normalizer.end(out);
  t.ok(out.length > 0, 'end() still closes the open call');
  for (const piece of out) t.match(piece, { id: 'c2', object: 'chat.completion.chunk', created: 2, model: 'm2', system_fingerprint: 'fp' }, 'with the last chunk\'s fields');
});

// Some upstreams send the usage chunk (`choices: []`) before the finish chunk; clients read usage
// from the last chunk before [DONE], as OpenAI sends it.
t.test('a usage chunk that comes before the finish goes out after it; one after the finish passes as it is', async (t) => {
  const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
  const usageChunk = (): ChatChunk => ({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage });
  for (const batched of [false, true]) {
    const normalizer = createStreamNormalizer(normalizeContext(TOOLS));
    const upstream = [chunk({ role: 'assistant', content: 'Hi' }), usageChunk(), chunk({}, 'stop')];
    const out: ChatChunk[] = [];
    if (batched) out.push(...normalizer.pushAll(upstream));
    else for (const piece of upstream) normalizer.push(piece, out);
    normalizer.end(out);
    t.same(out.map((piece) => (piece.choices.length === 0 ? 'usage' : piece.choices[0].finish_reason ?? 'delta')), ['delta', 'stop', 'usage'], batched ? 'pushAll' : 'push');
  }
  const normalizer = createStreamNormalizer(normalizeContext(TOOLS));
  const out: ChatChunk[] = [];
  for (const piece of [chunk({ role: 'assistant', content: 'Hi' }), chunk({}, 'stop'), usageChunk()]) normalizer.push(piece, out);
  normalizer.end(out);
  t.equal(out.filter((piece) => piece.choices.length === 0).length, 1, 'usage once, at the end');
  t.equal(out[out.length - 1].choices.length, 0);
});
