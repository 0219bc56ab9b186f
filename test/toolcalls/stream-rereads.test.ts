import t from 'tap';
import { ALL_FORMATS } from '../../src/toolcalls/formats/index.js';
import type { ToolCallFormat } from '../../src/toolcalls/formats/types.js';
import { parseWithDetails } from '../../src/toolcalls/parse.js';
import { createStreamExtractor } from '../../src/toolcalls/stream-extractor.js';
import { parseContext } from './helpers.js';

// A stream of tiny deltas must not re-read a held-back opener once per delta: counted as how often
// the formats are asked (matchAt), streamed in 1- and 4-character deltas against one whole-text
// pass over the same text. Work, not time, so the bound holds on any machine.

const ctx = parseContext();
let asked = 0;
const askedByFormat = new Map<string, number>();
const counted: ToolCallFormat[] = ALL_FORMATS.map((format) => ({
  name: format.name,
  triggers: format.triggers,
  detect: (text) => format.detect(text),
  parse: (text, parseCtx) => format.parse(text, parseCtx),
  matchAt: (text, start, matchCtx, env) => {
    asked++;
    askedByFormat.set(format.name, (askedByFormat.get(format.name) ?? 0) + 1);
    return format.matchAt(text, start, matchCtx, env);
  },
}));

const UNITS: Record<string, string> = {
  lfm2: '<|tool_call_start|>[get_weather(city="',
  'lfm2 with a value': '<|tool_call_start|>[get_weather(city="x", ',
  'python_start': '<|python_start|>[get_weather(',
  'kimi section': '<|tool_calls_section_begin|><|tool_call_begin|>functions.get_weather:0<|tool_call_argument_begin|>{',
  'qwen3-coder': '<tool_call>\n<function=get_weather>\n<parameter=city>\n',
  'hermes then prose': '<tool_call>{"name": "get_weather", "arguments": {"city": "Oslo"}} and then ',
};

function askedFor(text: string, delta: number): { asked: number; content: string } {
  asked = 0;
  const extractor = createStreamExtractor(ctx, counted);
  let content = '';
  const take = (events: ReturnType<typeof extractor.feed>): void => {
    for (const event of events) if (event.type === 'text') content += event.text;
  };
  for (let at = 0; at < text.length; at += delta) take(extractor.feed(text.slice(at, at + delta)));
  take(extractor.end());
  return { asked, content };
}

t.test('tiny deltas ask the formats at most 8× as often as one whole-text pass', async (t) => {
  for (const [name, unit] of Object.entries(UNITS)) {
    const text = unit.repeat(Math.ceil(20_000 / unit.length));
    const whole = askedFor(text, text.length);
    t.equal(whole.content, parseWithDetails(text, ctx).content ?? '', `${name}: one push gives the whole-text content`);
    for (const delta of [1, 4]) {
      const streamed = askedFor(text, delta);
      t.equal(streamed.content, whole.content, `${name}, ${delta}-char deltas: same content`);
      t.ok(streamed.asked <= 8 * whole.asked, `${name}, ${delta}-char deltas: asked ${streamed.asked} times, whole text ${whole.asked}`);
    }
  }
});

// The final flush reads everything held back in one pass; like a whole-text parse it must not ask
// formats whose markers occur nowhere in that text (they can only answer `none`).
t.test('the final flush asks only the formats whose markers are in the held-back text', async (t) => {
  const openers = ['<tool_call>{', '<TOOL>get_weather: {"', '<parameter=city>', '[TOOL_CALLS][{', '<|python_tag|>{"name": "'];
  for (const unit of openers) {
    const text = unit.repeat(Math.ceil(20_000 / unit.length));
    const extractor = createStreamExtractor(ctx, counted);
    let content = '';
    for (let at = 0; at < text.length; at += 64) for (const event of extractor.feed(text.slice(at, at + 64))) if (event.type === 'text') content += event.text;
    askedByFormat.clear();
    for (const event of extractor.end()) if (event.type === 'text') content += event.text;
    t.equal(content, parseWithDetails(text, ctx).content ?? '', `${unit}: streamed content equals the whole-text content`);
    const absent = ALL_FORMATS.filter((format) => !format.detect(text)).map((format) => format.name);
    const askedAbsent = absent.filter((name) => (askedByFormat.get(name) ?? 0) > 0);
    t.same(askedAbsent, [], `${unit}: formats without a marker in the text were not asked in the flush`);
  }
});

// An open block is re-read as it grows (about nine times in all, see CallScanner.push): the calls
// it holds were repaired again at each read. The tenant's repair memo makes it once per text.
t.test('a streamed call block repairs each broken argument text once, as the whole-text parse does', async (t) => {
  const SECTIONS: Record<string, [string, (i: number) => string, string]> = {
    kimi: ['<|tool_calls_section_begin|>', (i) => `<|tool_call_begin|>functions.get_weather:${i}<|tool_call_argument_begin|>{'city': 'Oslo${i}'}<|tool_call_end|>`, '<|tool_calls_section_end|>'],
    deepseek: ['<｜tool▁calls▁begin｜>', (i) => `<｜tool▁call▁begin｜>function<｜tool▁sep｜>get_weather\n\`\`\`json\n{'city': 'Oslo${i}'}\n\`\`\`<｜tool▁call▁end｜>`, '<｜tool▁calls▁end｜>'],
    hermes: ['', (i) => `<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Oslo${i}'}}</tool_call>\n`, ''],
  };
  for (const [name, [open, call, close]] of Object.entries(SECTIONS)) {
    const text = open + Array.from({ length: 20 }, (_, i) => call(i)).join('') + close;
    const whole = parseContext();
    t.equal(parseWithDetails(text, whole).result?.calls.length, 20, `${name}: the whole text has 20 calls`);
    const streamed = parseContext();
    const extractor = createStreamExtractor(streamed);
    let calls = 0;
    for (let at = 0; at < text.length; at += 16) calls += extractor.feed(text.slice(at, at + 16)).filter((event) => event.type === 'call').length;
    calls += extractor.end().filter((event) => event.type === 'call').length;
    t.equal(calls, 20, `${name}: streamed, 20 calls`);
    t.equal(streamed.repairBudget.charsRepaired, whole.repairBudget.charsRepaired, `${name}: ${streamed.repairBudget.charsRepaired} characters repaired streamed, ${whole.repairBudget.charsRepaired} whole`);
  }
});
