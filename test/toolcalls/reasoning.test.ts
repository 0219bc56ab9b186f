import fc from 'fast-check';
import t from 'tap';
import type { ChatChunk, ChatCompletion } from '../../src/api/chat-types.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { REASONING_WRAPPERS, type ReasoningMode } from '../../src/toolcalls/reasoning.js';
import { ToolCallStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import { normalizeContext, normalizeStream, parseContext } from './helpers.js';

const ctx = parseContext();
const CALL = '<tool_call>{"name": "get_weather", "arguments": {"city": "Paris"}}</tool_call>';
const JSON_CALL = '{"name": "get_weather", "arguments": {"city": "Paris"}}';
const KIMI_SECTION =
  '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{"city": "Paris"}<|tool_call_end|><|tool_calls_section_end|>';

function names(text: string, reasoning: ReasoningMode = 'content'): string[] {
  return parseWithDetails(text, ctx, { reasoning }).result?.calls.map((call) => call.name) ?? [];
}

/** The extractor fed `text` in pieces of 1-4 characters, summed up. */
function streamed(text: string, reasoning: ReasoningMode, sizes: number[] = [1, 2, 3, 4]) {
  const extractor = new ToolCallStreamExtractor(ctx, { reasoning });
  const events = [];
  for (let at = 0, k = 0; at < text.length; k++) {
    const size = sizes[k % sizes.length];
    events.push(...extractor.feed(text.slice(at, at + size)));
    at += size;
  }
  events.push(...extractor.end());
  let content = '';
  let thinking = '';
  const calls: string[] = [];
  for (const event of events) {
    if (event.type === 'text') content += event.text;
    else if (event.type === 'reasoning') thinking += event.text;
    else calls.push(`${event.call.name} ${event.call.arguments}`);
  }
  return { content: content === '' ? null : content, reasoning: thinking, calls };
}

function whole(text: string, reasoning: ReasoningMode) {
  const outcome = parseWithDetails(text, ctx, { reasoning });
  return { content: outcome.content, reasoning: outcome.reasoning, calls: outcome.result?.calls.map((call) => `${call.name} ${call.arguments}`) ?? [] };
}

t.test('a call inside a closed reasoning block is never a call, for every wrapper', async (t) => {
  for (const { open, close } of REASONING_WRAPPERS) {
    t.same(names(`${open}I could call ${CALL} but no.${close}It is sunny.`), [], `${open}: call inside stays reasoning`);
    t.same(names(`${open}maybe ${CALL}${close}\n${CALL}`), ['get_weather'], `${open}: only the real call after it counts`);
    t.same(streamed(`${open}maybe ${CALL}${close}\n${CALL}`, 'content').calls.length, 1, `${open}: streamed, one call`);
  }
});

t.test('Seed-OSS: the call rehearsed in <seed:think> does not duplicate the real one', async (t) => {
  const text = `<seed:think>The user wants weather. I will emit ${CALL}</seed:think>${CALL}`;
  t.same(names(text), ['get_weather']);
});

t.test('after an opener that never closes, the model\'s own call markers are calls (Kimi K2 Thinking)', async (t) => {
  const text = `<think>The user wants the weather in Paris, so I call the tool.${KIMI_SECTION}`;
  t.same(names(text), ['get_weather'], 'whole');
  t.same(streamed(text, 'content').calls, ['get_weather {"city":"Paris"}'], 'streamed');
  const split = whole(text, 'split');
  t.equal(split.reasoning, 'The user wants the weather in Paris, so I call the tool.');
  t.equal(split.content, null);
  t.same(streamed(text, 'split'), split, 'split: streamed = whole');
  t.same(names(`<think>Let me think.${CALL}`), ['get_weather'], 'Hermes markers too');
});

t.test('after an opener that never closes, guesses are not calls', async (t) => {
  t.same(names(`<think>I might answer with\n${JSON_CALL}`), [], 'bare JSON');
  t.same(names("<think>maybe\n[get_weather(city='Paris')]"), [], 'bare pythonic list');
});

t.test('a JSON call right after </think> with no newline is found (issue 15 bug 6)', async (t) => {
  t.same(names(`<think>need the weather</think>${JSON_CALL}`), ['get_weather']);
  t.same(names(`need the weather</think>${JSON_CALL}`), ['get_weather'], 'closer only (the template opened the block)');
  t.same(names(`<think>x</think>  ${JSON_CALL}\nmore`), ['get_weather'], 'spaces between, text after on the next line');
  t.same(streamed(`<think>need the weather</think>${JSON_CALL}`, 'content').calls.length, 1, 'streamed');
});

t.test('reasoning modes: content (default) keeps it as written, split moves it, drop removes it', async (t) => {
  const text = `<think>\nCheck the weather.\n</think>\n\nLet me look.\n${CALL}`;
  t.same(whole(text, 'content'), { content: '<think>\nCheck the weather.\n</think>\n\nLet me look.\n', reasoning: '', calls: ['get_weather {"city":"Paris"}'] });
  t.same(whole(text, 'split'), { content: 'Let me look.\n', reasoning: '\nCheck the weather.\n', calls: ['get_weather {"city":"Paris"}'] });
  t.same(whole(text, 'drop'), { content: 'Let me look.\n', reasoning: '', calls: ['get_weather {"city":"Paris"}'] });
  for (const mode of ['content', 'split', 'drop'] as const) t.same(streamed(text, mode), whole(text, mode), `${mode}: streamed = whole`);
});

function completion(content: string): ChatCompletion {
  return { id: 'c', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] };
}

async function* chunks(pieces: string[]): AsyncGenerator<ChatChunk> {
  for (const [i, piece] of pieces.entries()) {
    yield { id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: piece }, finish_reason: i === pieces.length - 1 ? 'stop' : null }] };
  }
}

async function streamedMessage(pieces: string[], reasoning: ReasoningMode) {
  let content = '';
  let thinking = '';
  const calls: string[] = [];
  for await (const chunk of normalizeStream(chunks(pieces), normalizeContext(undefined, { reasoning })).chunks) {
    for (const choice of chunk.choices) {
      if (typeof choice.delta.content === 'string') content += choice.delta.content;
      if (typeof choice.delta.reasoning_content === 'string') thinking += choice.delta.reasoning_content;
      for (const call of choice.delta.tool_calls ?? []) if (call.function?.name) calls.push(call.function.name);
    }
  }
  return { content, thinking, calls };
}

t.test('split mode: reasoning_content on the message and on the stream deltas, equal', async (t) => {
  const text = `<think>The user wants Paris.</think>Checking.${CALL}`;
  const { completion: out } = normalizeCompletion(completion(text), normalizeContext(undefined, { reasoning: 'split' }));
  const message = out.choices[0].message;
  t.equal(message.reasoning_content, 'The user wants Paris.');
  t.equal(message.content, 'Checking.');
  const got = await streamedMessage([...text], 'split');
  t.same(got, { content: 'Checking.', thinking: 'The user wants Paris.', calls: ['get_weather'] });
  const plain = normalizeCompletion(completion('<think>hm</think>Hello.'), normalizeContext([], { reasoning: 'split' })).completion.choices[0].message;
  t.same([plain.content, plain.reasoning_content], ['Hello.', 'hm'], 'also without declared tools');
});

t.test('SSE keeps leading and trailing whitespace when tools are declared (issue 15 bug 1)', async (t) => {
  for (const text of ['    def f():\n        return 1\n', 'Done. ', ' Sure! let me check.', '\n\nHello\n\n', '   ']) {
    for (const size of [1, 3, 7]) {
      const pieces = text.match(new RegExp(`[\\s\\S]{1,${size}}`, 'g')) ?? [];
      t.equal((await streamedMessage(pieces, 'content')).content, text, `${JSON.stringify(text)} in ${size}-char deltas`);
    }
    t.equal(normalizeCompletion(completion(text), normalizeContext()).completion.choices[0].message.content, text, `${JSON.stringify(text)} whole`);
  }
});

t.test('prose around calls is kept as written (issue 15 bug 2)', async (t) => {
  const text = `Checking both.  \n${CALL}\n\n  and then  ${CALL} Done. `;
  const outcome = whole(text, 'content');
  t.equal(outcome.content, 'Checking both.  \n\n\n  and then   Done. ');
  t.same(streamed(text, 'content'), outcome);
});

const PIECES = [
  ...REASONING_WRAPPERS.flatMap((w) => [w.open, w.close]),
  CALL, JSON_CALL, KIMI_SECTION, "[get_weather(city='Paris')]", 'Hello', ' ', '  ', '\n', '\t', '    def f():\n', 'Done. ', '<', '`', '```',
];

t.test('streamed = whole for prose, whitespace and reasoning wrappers in every mode, 1-4 character deltas (fast-check)', async (t) => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...PIECES), { maxLength: 12 }),
      fc.constantFrom<ReasoningMode>('content', 'split', 'drop'),
      fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 8 }),
      (parts, mode, sizes) => {
        const text = parts.join('');
        const expected = whole(text, mode);
        const got = streamed(text, mode, sizes);
        const same = JSON.stringify(got) === JSON.stringify(expected);
        if (!same) t.same(got, expected, JSON.stringify({ text, mode, sizes }));
        return same;
      },
    ),
    { seed: 1515, numRuns: 1500 },
  );
  t.pass('property held');
});
