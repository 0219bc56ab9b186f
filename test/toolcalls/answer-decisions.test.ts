import t from 'tap';
import type { ChatChunk, ChatCompletion, ChunkDelta, FinishReason, ToolCall, ToolCallDelta } from '../../src/api/chat-types.js';
import { GatewayError } from '../../src/errors.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { answerWarnings } from '../../src/toolcalls/normalize-shared.js';
import { createStreamNormalizer } from '../../src/toolcalls/normalize-stream.js';
import { readWithSdk, sseOf } from '../helpers/sdk-stream.js';
import { normalizeContext } from './helpers.js';

// The answer decisions the JSON and stream normalizers share (normalize-decisions.ts), on stream
// shapes real providers send (from their documented formats): each read back through the official
// openai SDK's stream helpers, as most agents read streams.

function chunk(delta: ChunkDelta, finish: FinishReason | null = null, extra: Partial<ChatChunk> = {}): ChatChunk {
  return { id: 'chatcmpl-x', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish }], ...extra };
}
const callDelta = (d: Partial<ToolCallDelta> & { index: number }): ChunkDelta => ({ tool_calls: [d as ToolCallDelta] });

function runStream(input: ChatChunk[], extra: Parameters<typeof normalizeContext>[1] = {}): { out: ChatChunk[]; report: ReturnType<typeof createStreamNormalizer>['report'] } {
  const normalizer = createStreamNormalizer(normalizeContext(undefined, extra));
  const out: ChatChunk[] = [];
  for (const c of input) normalizer.push(c, out);
  normalizer.end(out);
  return { out, report: normalizer.report };
}

function finishes(out: ChatChunk[]): Array<FinishReason | null> {
  return out.flatMap((c) => c.choices.map((choice) => choice.finish_reason)).filter((f) => f !== null);
}

function indices(out: ChatChunk[]): number[] {
  return out.flatMap((c) => c.choices.flatMap((choice) => (choice.delta.tool_calls ?? []).map((d) => d.index)));
}

// DashScope (Qwen) repeats `id: ""` and `type` on every continuation delta of a call.
const DASHSCOPE: ChatChunk[] = [
  chunk({ role: 'assistant', content: '' }),
  chunk(callDelta({ index: 0, id: 'call_0f3a9c1d2b7e4c55a8d1e2f3', type: 'function', function: { name: 'get_weather', arguments: '' } })),
  chunk(callDelta({ index: 0, id: '', type: 'function', function: { arguments: '{"city": "Pa' } })),
  chunk(callDelta({ index: 0, id: '', type: 'function', function: { name: '', arguments: 'ris"}' } })),
  chunk({ content: null }, 'tool_calls'),
  chunk({}, 'tool_calls', { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } }),
];

t.test('a continuation delta with id "" continues the call; finish_reason is sent once', async (t) => {
  const { out, report } = runStream(DASHSCOPE);
  t.equal(report.toolCalls, 1, 'one call, no phantom');
  t.same(finishes(out), ['tool_calls'], 'one finish_reason');
  t.ok(out.some((c) => c.usage?.total_tokens === 15), 'the usage of the repeated finish chunk is kept');
  const read = await readWithSdk(sseOf(out));
  t.ok(read.ok, read.ok ? 'the SDK reads it' : read.error);
  if (!read.ok) return;
  const calls = read.completion.choices[0].message.tool_calls ?? [];
  t.equal(calls.length, 1);
  const fn = calls[0].type === 'function' ? calls[0].function : undefined;
  t.same([fn?.name, fn?.arguments], ['get_weather', '{"city": "Paris"}']);
  t.equal(read.completion.choices[0].finish_reason, 'tool_calls');
});

t.test('a non-empty id that differs on a used index is a new call', async (t) => {
  const input = [
    chunk(callDelta({ index: 0, id: 'call_aaaaaaaaaaaaaaaaaaaaaaaa', type: 'function', function: { name: 'get_time', arguments: '{}' } })),
    chunk(callDelta({ index: 0, id: 'call_bbbbbbbbbbbbbbbbbbbbbbbb', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } })),
    chunk({}, 'tool_calls'),
  ];
  const { out, report } = runStream(input);
  t.equal(report.toolCalls, 2);
  t.same([...new Set(indices(out))], [0, 1]);
});

// Anthropic's OpenAI-compatible endpoint numbers calls after the text block: the only call has index 1.
const ANTHROPIC_INDEX_1: ChatChunk[] = [
  chunk({ role: 'assistant', content: 'Let me look that up.' }),
  chunk(callDelta({ index: 1, id: 'toolu_01A09q90qw90lq917835lq9', type: 'function', function: { name: 'get_weather', arguments: '' } })),
  chunk(callDelta({ index: 1, function: { arguments: '{"city":' } })),
  chunk(callDelta({ index: 1, function: { arguments: '"Paris"}' } })),
  chunk({}, 'tool_calls'),
];

t.test('tool-call indices the client sees are 0..n-1 per choice', async (t) => {
  for (const extra of [{}, { tools: new Map() }]) {
    const { out } = runStream(ANTHROPIC_INDEX_1, extra);
    t.same([...new Set(indices(out))], [0]);
    const read = await readWithSdk(sseOf(out));
    t.ok(read.ok, read.ok ? 'the SDK reads it' : read.error);
    if (read.ok) t.equal(read.completion.choices[0].message.tool_calls?.[0].id, 'toolu_01A09q90qw90lq917835lq9');
  }
  // Two calls numbered 3 and 7, then a text call: 0, 1, 2.
  const gappy = [
    chunk(callDelta({ index: 3, id: 'call_cccccccccccccccccccccccc', type: 'function', function: { name: 'get_time', arguments: '{}' } })),
    chunk(callDelta({ index: 7, id: 'call_dddddddddddddddddddddddd', type: 'function', function: { name: 'get_time', arguments: '{}' } })),
    chunk({}, 'tool_calls'),
  ];
  t.same([...new Set(indices(runStream(gappy).out))], [0, 1]);
});

t.test('the first delta carries role "assistant" when the upstream never sends it', async (t) => {
  const noRole = [chunk({ content: 'Bonjour' }), chunk({ content: ' !' }), chunk({}, 'stop')];
  for (const extra of [{}, { tools: new Map() }]) {
    const { out } = runStream(noRole, extra);
    t.equal(out[0].choices[0].delta.role, 'assistant');
    t.equal(out.filter((c) => c.choices.some((choice) => choice.delta.role !== undefined)).length, 1, 'once');
    const read = await readWithSdk(sseOf(out));
    t.ok(read.ok, read.ok ? 'the SDK reads it' : read.error);
    if (read.ok) t.same([read.completion.choices[0].message.role, read.completion.choices[0].message.content], ['assistant', 'Bonjour !']);
  }
});

t.test('upstream indices must be small non-negative integers: else a 502, nothing polluted', async (t) => {
  const bad: unknown[] = ['__proto__', -1, 4e8, 1.5, 'constructor', null];
  for (const index of bad) {
    for (const where of ['call', 'choice'] as const) {
      const input =
        where === 'call'
          ? [chunk({ tool_calls: [{ index, id: 'pwned', type: 'function', function: { name: 'get_time', arguments: '{}' } } as unknown as ToolCallDelta] })]
          : [{ ...chunk({ content: 'x' }), choices: [{ index: index as number, delta: { content: 'x' }, finish_reason: null }] }];
      for (const extra of [{}, { tools: new Map() }]) {
        try {
          runStream(input, extra);
          t.fail(`${where} index ${String(index)} accepted`);
        } catch (error) {
          t.ok(error instanceof GatewayError && error.status === 502 && error.code === 'upstream_bad_response', `${where} index ${String(index)}: 502 upstream_bad_response`);
        }
      }
    }
    const completion: ChatCompletion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: index as number, message: { role: 'assistant', content: 'x' }, finish_reason: 'stop' }] };
    t.throws(() => normalizeCompletion(completion, normalizeContext()), { code: 'upstream_bad_response' });
  }
  t.equal(([] as unknown as { id?: unknown }).id, undefined, 'Array.prototype untouched');
});

// ---- a cut-off answer stays cut off ----

const TRUNCATED_ARGS = '{"city": "San Francis';

t.test('native call cut off by length: finish_reason and arguments kept as they are, in JSON and SSE', async (t) => {
  const json: ChatCompletion = {
    id: 'c',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_eeeeeeeeeeeeeeeeeeeeeeee', type: 'function', function: { name: 'get_weather', arguments: TRUNCATED_ARGS } }] }, finish_reason: 'length' }],
  };
  const { completion, report } = normalizeCompletion(json, normalizeContext());
  t.equal(completion.choices[0].finish_reason, 'length');
  t.equal(completion.choices[0].message.tool_calls?.[0].function.arguments, TRUNCATED_ARGS, 'never completed');
  t.ok(report.cutOff);
  t.match(answerWarnings(report), /answer_cut_off=1/);

  const stream = runStream([
    chunk(callDelta({ index: 0, id: 'call_eeeeeeeeeeeeeeeeeeeeeeee', type: 'function', function: { name: 'get_weather', arguments: '' } })),
    chunk(callDelta({ index: 0, function: { arguments: TRUNCATED_ARGS } })),
    chunk({}, 'length'),
  ]);
  t.same(finishes(stream.out), ['length']);
  t.ok(stream.report.cutOff);
  const read = await readWithSdk(sseOf(stream.out));
  if (read.ok) {
    t.equal(read.completion.choices[0].finish_reason, 'length');
    const call = read.completion.choices[0].message.tool_calls?.[0];
    t.equal(call?.type === 'function' ? call.function.arguments : undefined, TRUNCATED_ARGS);
  } else {
    // The SDK may refuse to parse cut-off arguments of a strict tool; it must not be told they are complete.
    t.notMatch(read.error, /missing (role|finish_reason)/);
  }
});

t.test('a text call cut off mid-way stays text, in JSON and SSE (no completion by repair)', async (t) => {
  const texts = [
    `Checking.\n<tool_call>\n{"name": "get_weather", "arguments": ${TRUNCATED_ARGS}`,
    `[TOOL_CALLS] [{"name": "get_weather", "arguments": ${TRUNCATED_ARGS}`,
    `<tool_call>{"name": "get_time", "arguments": {}}`,
  ];
  for (const text of texts) {
    for (const finish of ['length', 'content_filter'] as const) {
      const json: ChatCompletion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: finish }] };
      const { completion } = normalizeCompletion(json, normalizeContext());
      t.equal(completion.choices[0].finish_reason, finish);
      t.equal(completion.choices[0].message.tool_calls, undefined, `JSON: no call from ${JSON.stringify(text.slice(0, 30))}`);
      t.equal(completion.choices[0].message.content, text, 'JSON: the text as it was');
      const pieces = [chunk({ role: 'assistant', content: '' }), ...[...text].map((ch) => chunk({ content: ch })), chunk({}, finish)];
      const { out } = runStream(pieces);
      t.same(finishes(out), [finish]);
      t.equal(out.map((c) => c.choices[0]?.delta.content ?? '').join(''), text, 'SSE: the text as it was');
      t.notOk(out.some((c) => c.choices[0]?.delta.tool_calls), 'SSE: no call');
    }
  }
});

t.test('complete text calls before the cut are kept, finish_reason stays length', async (t) => {
  const text = '<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\nAnd now <tool_call>{"name": "get_weather", "arguments": {"city": "Par';
  const json: ChatCompletion = { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'length' }] };
  const { completion } = normalizeCompletion(json, normalizeContext());
  t.same(completion.choices[0].message.tool_calls?.map((c: ToolCall) => c.function.name), ['get_time']);
  t.equal(completion.choices[0].finish_reason, 'length');
  t.equal(completion.choices[0].message.content, '\nAnd now <tool_call>{"name": "get_weather", "arguments": {"city": "Par');
});
