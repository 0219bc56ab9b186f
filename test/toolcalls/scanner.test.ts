import fc from 'fast-check';
import t, { type Test } from 'tap';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { ToolCallStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import { ALL_FORMATS } from '../../src/toolcalls/formats/index.js';
import { byTriggerOf, triggerTableOf } from '../../src/toolcalls/formats/shared.js';
import { REASONING_WRAPPERS } from '../../src/toolcalls/reasoning.js';
import { CallScanner } from '../../src/toolcalls/scanner.js';
import { JsonStructure } from '../../src/toolcalls/text/json-structure.js';
import { cpuMs, growthRatio } from '../helpers/growth.js';
import { normalizeContext, parseContext } from './helpers.js';

// The scanner's cost guarantees (issue 14 §1/§2): linear time over adversarial model output,
// exact memoized JSON ends, bounded nesting. Growth is checked by counting work, or by the ratio
// of CPU time at 4x the size (min of several runs); no absolute time bounds.

const ctx = parseContext();

/** findJsonEnd as it was: a fresh scan from the opener (the reference the memo must equal). */
function freshEnd(text: string, start: number): number | 'incomplete' | 'invalid' {
  const closer: Record<string, string> = { '{': '}', '[': ']' };
  if (text[start] !== '{' && text[start] !== '[') return 'invalid';
  const expected = [closer[text[start]]];
  let quote = '';
  for (let i = start + 1; i < text.length; i++) {
    const ch = text[i];
    if (quote) {
      if (ch === '\\') i++;
      else if (ch === quote) quote = '';
      continue;
    }
    if (ch === '"' || ch === "'") quote = ch;
    else if (ch === '{' || ch === '[') expected.push(closer[ch]);
    else if (ch === '}' || ch === ']') {
      if (expected.pop() !== ch) return 'invalid';
      if (expected.length === 0) return i + 1;
    }
  }
  return 'incomplete';
}

t.test('memoized JSON ends equal a fresh scan from every opener, asked in any order (fast-check)', async (t) => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom('{', '}', '[', ']', '"', "'", '\\', 'a', ' ', ':'), { maxLength: 60 }), fc.array(fc.nat(), { maxLength: 30 }), (chars, order) => {
      const text = chars.join('');
      const structure = new JsonStructure(text);
      const positions = [...text].map((_, i) => i);
      // Ask in a shuffled order first, then everything left to right.
      for (const k of order) if (positions.length > 0) structure.endOf(positions[k % positions.length]);
      for (const i of positions) if (structure.endOf(i) !== freshEnd(text, i)) return false;
      return structure.walked <= 5 * text.length;
    }),
    { seed: 1414, numRuns: 3000 },
  );
  t.pass('exact, and at most five passes of walking');
});

t.test('JSON ends: repeated unclosed openers cost a few passes, not one per opener', async (t) => {
  const families = {
    'unclosed object': '<tool_call>{',
    'unclosed string': '<tool_call>{"',
    'escaped quotes that resync walks': '<tool_call>{\\"',
    'mixed quotes': `{"a": '{`,
  };
  for (const [name, unit] of Object.entries(families)) {
    const text = `<tool_call>{"${unit.repeat(20_000)}${'x'.repeat(50_000)}`;
    const structure = new JsonStructure(text);
    for (let i = 0; i < text.length; i++) if (text[i] === '{' || text[i] === '[') structure.endOf(i);
    t.ok(structure.walked <= 5 * text.length, `${name}: walked ${structure.walked} for ${text.length} characters`);
  }
});

/** The thread clock ticks in 4 ms steps on some kernels: a run is repeated until this much CPU was measured. */
const WINDOW_MS = 40;

/** CPU ms per run of `run` (repeated over a WINDOW_MS window), the best of three windows. */
function cpuMsPerRun(run: () => void): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    const before = cpuMs();
    let runs = 0;
    let used = 0;
    do {
      run();
      runs++;
      used = cpuMs() - before;
    } while (used < WINDOW_MS);
    best = Math.min(best, used / runs);
  }
  return best;
}

function wholeRun(text: string): () => void {
  return () => parseWithDetails(text, ctx);
}

function streamRun(text: string): () => void {
  return () => {
    const extractor = new ToolCallStreamExtractor(ctx);
    for (let at = 0; at < text.length; at += 16) extractor.feed(text.slice(at, at + 16));
    extractor.end();
  };
}

/** 4x the text must cost well under 16x (quadratic) — 8x leaves room for noise. */
function checkGrowth(t: Test, name: string, make: (size: number) => string, small = 25 * 1024): void {
  for (const [mode, runner] of [['whole', wholeRun], ['stream', streamRun]] as const) {
    runner(make(8 * 1024))(); // warm up
    const { small: a, large: b, ratio, pairs } = growthRatio(() => ({ small: cpuMsPerRun(runner(make(small))), large: cpuMsPerRun(runner(make(4 * small))) }), 8);
    t.ok(ratio < 8, `${name} (${mode}): ${a.toFixed(2)} ms -> ${b.toFixed(2)} ms, ratio ${ratio.toFixed(1)} (pairs measured: ${pairs})`);
  }
}

const repeat = (unit: string, prefix = '') => (size: number) => prefix + unit.repeat(Math.ceil(size / unit.length));

t.test('growth: a model repeating an opener that never closes (issue 14 §1)', async (t) => {
  const families: Record<string, (size: number) => string> = {
    'name + {"': repeat('"name\n{"\n'),
    '[TOOL_CALLS][{': repeat('[TOOL_CALLS][{'),
    '<tool_call>{': repeat('<tool_call>{'),
    '<tool_call>{"': repeat('<tool_call>{"'),
    '<|python_tag|>{': repeat('<|python_tag|>{'),
    'functions.get_weather:0 {': repeat('functions.get_weather:0 {'),
    '<TOOL>': repeat('<TOOL>'),
    'DeepSeek call begin': repeat('<｜tool▁call▁begin｜>'),
    "<|python_start|>[f(city='": repeat("<|python_start|>[get_weather(city='"),
    'pythonic after colons, malformed': repeat(': [get_weather(city=('),
    'unclosed <think> with markers': repeat('<tool_call>{"a": ', '<think>'),
    'escaped quotes': repeat('<tool_call>{\\"', '<tool_call>{"'),
    '```json fences': repeat('```json\n{\n'),
  };
  for (const [name, make] of Object.entries(families)) checkGrowth(t, name, make);
});

t.test('DeepSeek V3 body with a long run of spaces: no backtracking (was cubic)', async (t) => {
  const make = (spaces: number) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>a\`\`\`${' '.repeat(spaces)}x<｜tool▁call▁end｜>`;
  t.equal(parseWithDetails(make(3000), ctx).result, null, 'not a call: stays content');
  wholeRun(make(5000))();
  const { ratio, pairs } = growthRatio(() => ({ small: cpuMsPerRun(wholeRun(make(25_000))), large: cpuMsPerRun(wholeRun(make(100_000))) }), 8);
  t.ok(ratio < 8, `ratio ${ratio.toFixed(1)} (pairs measured: ${pairs})`);
  const v3 = '<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n```json\n{"city": "Paris"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
  t.same(parseWithDetails(v3, ctx).result?.calls, [{ name: 'get_weather', arguments: '{"city":"Paris"}' }], 'V3 calls still read');
});

t.test('deep nesting never throws: the text stays content (issue 14 §2)', async (t) => {
  const deep = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const texts = {
    'pythonic list': `[get_weather(city=${'['.repeat(5000)}`,
    'pythonic list, closed': `[get_weather(city=${deep(5000)})]`,
    'wrapped pythonic': `<|python_start|>[get_weather(city=${deep(5000)})]<|python_end|>`,
    '<tool_call> with 20k nested arrays': `<tool_call>${deep(20_000)}</tool_call>`,
    '20k-deep arguments': `<tool_call>{"name": "get_weather", "arguments": {"city": ${deep(20_000)}}}</tool_call>`,
    '20k-deep bare JSON call': `{"name": "get_weather", "arguments": {"city": ${deep(20_000)}}}`,
    'Mistral, deep': `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": ${deep(20_000)}}}]`,
  };
  for (const [name, text] of Object.entries(texts)) {
    let result: unknown = 'threw';
    t.doesNotThrow(() => (result = parseWithDetails(text, ctx).result), name);
    t.equal(result, null, `${name}: no call`);
    const input = { id: 'c', object: 'chat.completion' as const, created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant' as const, content: text }, finish_reason: 'stop' as const }] };
    t.doesNotThrow(() => normalizeCompletion(input, normalizeContext()), `${name}: normalize`);
    t.doesNotThrow(() => streamRun(text)(), `${name}: streamed`);
  }
  const fine = `<tool_call>{"name": "get_weather", "arguments": {"city": "Paris", "extra": ${deep(40)}}}</tool_call>`;
  t.equal(parseWithDetails(fine, ctx).result?.calls.length, 1, 'ordinary nesting (40 levels) is still a call');
});

// A scanner is made per streamed choice: 1,000 streams held 1,000 copies of the same trigger table
// and wrapper set (~1 KB each) until they ended. They are built once per format list now.
t.test('scanners over the same format list share one trigger table and wrapper set, equal to a fresh one', async (t) => {
  type Internals = { byTrigger: unknown; wrapperStarts: unknown };
  const a = new CallScanner(ctx, ALL_FORMATS) as unknown as Internals;
  const b = new CallScanner(ctx, ALL_FORMATS) as unknown as Internals;
  t.equal(a.byTrigger, b.byTrigger, 'one table');
  t.equal(a.wrapperStarts, b.wrapperStarts, 'one wrapper set');
  t.same([...triggerTableOf(ALL_FORMATS)], [...byTriggerOf(ALL_FORMATS)], 'the shared table is byTriggerOf');
  t.same([...(a.wrapperStarts as Set<number>)].sort(), [...new Set(REASONING_WRAPPERS.flatMap((w) => [w.open.charCodeAt(0), w.close.charCodeAt(0)]))].sort());
  t.equal(triggerTableOf([]).size, 0, 'no formats, no triggers');
});
