import fc from 'fast-check';
import t from 'tap';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { ToolCallStreamExtractor, type ExtractorEvent } from '../../src/toolcalls/stream-extractor.js';
import type { ParsedCall } from '../../src/toolcalls/types.js';
import { CASES, STREAM_EXTRA_TEXTS } from './fixtures.js';
import { prng } from './deltas.js';
import { parseContext } from './helpers.js';

const ctx = parseContext();
const SPLITS_PER_CASE = 120;

function randomSplit(text: string, random: () => number): string[] {
  const pieces: string[] = [];
  let at = 0;
  while (at < text.length) {
    // Mostly small pieces (token-sized), sometimes big ones.
    const size = random() < 0.85 ? 1 + Math.floor(random() * 6) : 1 + Math.floor(random() * 40);
    pieces.push(text.slice(at, at + size));
    at += size;
  }
  return pieces;
}

interface Outcome {
  text: string;
  calls: ParsedCall[];
  rejected: number;
}

function stream(pieces: string[]): Outcome {
  const extractor = new ToolCallStreamExtractor(ctx);
  const events: ExtractorEvent[] = [];
  for (const piece of pieces) events.push(...extractor.feed(piece));
  events.push(...extractor.end());
  let text = '';
  const calls: ParsedCall[] = [];
  for (const event of events) {
    if (event.type === 'text') text += event.text;
    else if (event.type === 'call') calls.push(event.call);
  }
  return { text, calls, rejected: extractor.rejectedNames };
}

function whole(text: string): Outcome {
  const { result, rejectedNames, content } = parseWithDetails(text, ctx);
  // No calls: the extractor releases the content as the whole-text parse gives it (the text, but
  // for markup a format removes: a bare Mistral [TOOL_CALLS] at the end).
  return result ? { text: result.content ?? '', calls: result.calls, rejected: rejectedNames } : { text: content ?? '', calls: [], rejected: rejectedNames };
}

const texts = [...CASES.map((c) => ({ title: `${c.format}: ${c.title}`, text: c.text })), ...STREAM_EXTRA_TEXTS.map((text, i) => ({ title: `extra ${i}`, text }))];

t.test(`streamed = whole text, ${SPLITS_PER_CASE} seeded random splits per case (+ 1-char and 1-piece)`, async (t) => {
  texts.forEach(({ title, text }, index) => {
    const expected = whole(text);
    const random = prng(1000 + index);
    let mismatches = 0;
    const splits = [[text], [...text]];
    for (let i = 0; i < SPLITS_PER_CASE; i++) splits.push(randomSplit(text, random));
    for (const pieces of splits) {
      const got = stream(pieces);
      if (JSON.stringify(got) !== JSON.stringify(expected)) {
        if (mismatches++ === 0) t.same(got, expected, `${title}: split ${JSON.stringify(pieces)}`);
      }
    }
    t.equal(mismatches, 0, `${title}: all ${splits.length} splits agree`);
  });
});

// Arbitrary text from call-syntax fragments: catches any decision that depends on the split.
const FRAGMENTS = [
  '<tool_call>', '</tool_call>', '{"name": "get_time", "arguments": {}}', '{"name": "nope", "arguments": {}}', '{"city": "S', '}', ']', '[', '{', '"', "'",
  '[TOOL_CALLS]', 'get_weather', '[ARGS]', '<|python_tag|>', '<|python_start|>', '<|python_end|>', "[get_time(zone='x')]", 'get_time()', '(',
  '<function=get_time>', '<parameter=zone>', '</parameter>', '</function>', '<TOOL>', '</TOOL>', 'search_procedure: "q"', '<think>', '</think>',
  '```', '```json', '`', 'functions.get_time:0 ', '<|tool_call_begin|>', '<|tool_call_argument_begin|>', '<|tool_call_end|>',
  '<｜tool▁calls▁begin｜>', '<｜tool▁call▁begin｜>', '<｜tool▁sep｜>', '<｜tool▁call▁end｜>', ';', ',', ' ', '\n', '\n\n', 'Hello', 'f', '<', 'é🌦',
  // Reasoning wrappers, and prose whose leading/trailing whitespace must survive byte for byte.
  '<seed:think>', '</seed:think>', '<thinking>', '</thinking>', '◁think▷', '◁/think▷', '<|begin_of_thought|>', '<|end_of_thought|>',
  '<|tool_calls_section_begin|>', '<|tool_calls_section_end|>', '    def f():\n        return 1\n', 'Done. ', ' Sure! ', '\t', '   ',
];

const CASE_TEXTS = CASES.map((c) => c.text);
/** Fragments, whole well-formed outputs, and outputs cut at a random point, mixed. */
const part = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) },
  { weight: 1, arbitrary: fc.constantFrom(...CASE_TEXTS) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...CASE_TEXTS), fc.nat()).map(([text, cut]) => text.slice(0, cut % (text.length + 1))) },
);

t.test('streamed = whole text for arbitrary fragment soups (fast-check)', async (t) => {
  fc.assert(
    fc.property(fc.array(part, { maxLength: 16 }), fc.integer({ min: 1, max: 2 ** 30 }), (parts, seed) => {
      const text = parts.join('');
      const expected = whole(text);
      const got = stream(randomSplit(text, prng(seed)));
      const same = JSON.stringify(got) === JSON.stringify(expected);
      if (!same) t.same(got, expected, JSON.stringify(text));
      return same;
    }),
    { seed: 424242, numRuns: 1500 },
  );
  t.pass('property held');
});

t.test('prose is released as it arrives, byte for byte', async (t) => {
  const extractor = new ToolCallStreamExtractor(ctx);
  t.same(extractor.feed('Hello there, '), [{ type: 'text', text: 'Hello there, ' }], 'a trailing space goes out at once');
  t.same(extractor.feed('friend. '), [{ type: 'text', text: 'friend. ' }]);
  t.same(extractor.feed('Let me <tool'), [{ type: 'text', text: 'Let me ' }], 'a possible marker is held back');
  t.same(extractor.feed('_call>{"name": "get_time", '), [], 'a started block waits');
  const events = extractor.feed('"arguments": {}}</tool_call> Done');
  t.same(events, [
    { type: 'call', call: { name: 'get_time', arguments: '{}' }, format: 'hermes' },
    { type: 'text', text: ' Done' },
  ]);
  t.same(extractor.end(), []);
});

t.test('a false alarm is released once it is clear', async (t) => {
  const extractor = new ToolCallStreamExtractor(ctx);
  t.same(extractor.feed('a <'), [{ type: 'text', text: 'a ' }]);
  t.same(extractor.feed('b> c'), [{ type: 'text', text: '<b> c' }]);
});

t.test('reasoning streams through; a call marker inside it waits for the closer', async (t) => {
  const extractor = new ToolCallStreamExtractor(ctx);
  t.same(extractor.feed('<think>step one <tool_call>{'), [{ type: 'text', text: '<think>step one ' }]);
  t.same(extractor.feed('}</thi'), [{ type: 'text', text: '<tool_call>{}' }], 'not a call: released');
  t.same(extractor.feed('nk>ok'), [{ type: 'text', text: '</think>ok' }]);
});

t.test('passes(): plain prose after the text began goes through whole; anything else is left to feed, with nothing changed', async (t) => {
  const pieces = ['  ', 'Let', ' me', ' check.', '\n', '<tool_call>\n{"name": "get_weather", "arguments": {"city": "Paris"}}\n</tool_call>', ' Done', '.'];
  const reference = stream(pieces);
  const extractor = new ToolCallStreamExtractor(ctx);
  const events: ExtractorEvent[] = [];
  const taken: string[] = [];
  for (const piece of pieces) {
    if (extractor.passes(piece)) {
      taken.push(piece);
      events.push({ type: 'text', text: piece });
    } else events.push(...extractor.feed(piece));
  }
  events.push(...extractor.end());
  t.same(taken, [' me', ' check.', '\n', ' Done', '.'], 'taken: prose once the text began; not the leading blank, the first word, or the call');
  const text = events.map((event) => (event.type === 'text' ? event.text : '')).join('');
  const calls = events.flatMap((event) => (event.type === 'call' ? [event.call] : []));
  t.same({ text, calls }, { text: reference.text, calls: reference.calls }, 'the same text and calls as feeding everything');
  t.equal(calls.length, 1);
});

/** Counts the final passes (push with final = true) the extractor's private scanner gets from now on. */
function countFinalPasses(extractor: ToolCallStreamExtractor): () => number {
  const scanner = (extractor as unknown as { scanner: { push: (delta: string, final?: boolean) => unknown } }).scanner;
  const push = scanner.push.bind(scanner);
  let passes = 0;
  scanner.push = (delta, final) => {
    if (final === true) passes++;
    return push(delta, final);
  };
  return () => passes;
}

t.test('end(): no final scanner pass when all text went out as plain prose; one when something was held back', async (t) => {
  const prose = new ToolCallStreamExtractor(ctx);
  for (const delta of ['Let me', ' look', ' it up.']) prose.feed(delta);
  const prosePasses = countFinalPasses(prose);
  t.same(prose.end(), [], 'nothing left to release');
  t.equal(prosePasses(), 0, 'plain prose: nothing to re-read at the end');

  const held = new ToolCallStreamExtractor(ctx);
  held.feed('Sure ');
  held.feed('<tool');
  const heldPasses = countFinalPasses(held);
  t.same(held.end(), [{ type: 'text', text: '<tool' }], 'what was held back is released');
  t.equal(heldPasses(), 1, 'held-back text: the final pass runs');
});
