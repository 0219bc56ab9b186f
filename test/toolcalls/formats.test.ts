import t from 'tap';
import { ALL_FORMATS } from '../../src/toolcalls/formats/index.js';
import { parseToolCallsFromText } from '../../src/toolcalls/parse.js';
import type { ParseResult } from '../../src/toolcalls/types.js';
import { CASES } from './fixtures.js';
import { parseContext, tool } from './helpers.js';

const ctx = parseContext();

function simplify(result: ParseResult | null) {
  if (!result) return null;
  return { calls: result.calls.map((call) => ({ name: call.name, args: JSON.parse(call.arguments) })), content: result.content, format: result.format };
}

for (const format of ALL_FORMATS) {
  const cases = CASES.filter((c) => c.format === format.name);
  t.test(`${format.name}`, async (t) => {
    t.ok(cases.length > 0, 'has cases');
    for (const c of cases) {
      const whole = simplify(parseToolCallsFromText(c.text, ctx));
      const alone = simplify(format.parse(c.text, ctx));
      if (c.calls === null) {
        t.equal(whole, null, `${c.title}: stays content`);
        t.equal(alone, null, `${c.title}: stays content (format alone)`);
      } else {
        t.same(whole, { calls: c.calls, content: c.content ?? null, format: format.name }, c.title);
        t.same(alone, whole, `${c.title}: format alone agrees`);
      }
    }
  });
}

t.test('malformed input never throws', async (t) => {
  const nasty = ['<tool_call>', '<tool_call>{', '[TOOL_CALLS][{]', '<|python_tag|>{"name": }', '[get_weather(', '<function=', '<TOOL>', '```json\n[', '{"name"', '\u0000<｜tool▁call▁begin｜>', 'functions.x:1 {'];
  for (const text of nasty) t.doesNotThrow(() => parseToolCallsFromText(text, ctx), JSON.stringify(text));
});

t.test('no declared tools: nothing is parsed', async (t) => {
  const empty = parseContext([]);
  t.equal(parseToolCallsFromText('<tool_call>{"name": "get_weather", "arguments": {}}</tool_call>', empty), null);
});

t.test('qwen3-coder keeps strings as strings and nullable as null', async (t) => {
  const nullable = tool('lookup', { id: { type: 'integer' }, note: { anyOf: [{ type: 'string' }, { type: 'null' }] }, flag: { type: 'boolean' } });
  const local = parseContext([nullable]);
  const text = '<tool_call><function=lookup><parameter=id>42</parameter><parameter=note>None</parameter><parameter=flag>maybe</parameter><parameter=extra>7</parameter></function></tool_call>';
  const result = parseToolCallsFromText(text, local);
  t.same(JSON.parse(result!.calls[0].arguments), { id: 42, note: null, flag: 'maybe', extra: '7' });
});

t.test('qwen3-coder reads type names outside JSON Schema as vLLM does (tests/tool_parsers/test_qwen3coder_tool_parser.py)', async (t) => {
  const loose = tool('measure', { ratio: { type: 'float' }, count: { type: 'int' }, on: { type: 'bool' }, opts: { type: 'dict' }, items: { type: 'list' } });
  const text = '<tool_call>\n<function=measure>\n<parameter=ratio>\n3.14\n</parameter>\n<parameter=count>\n7\n</parameter>\n<parameter=on>\ntrue\n</parameter>\n<parameter=opts>\n{"a": 1}\n</parameter>\n<parameter=items>\n[1]\n</parameter>\n</function>\n</tool_call>';
  const result = parseToolCallsFromText(text, parseContext([loose]));
  t.same(JSON.parse(result!.calls[0].arguments), { ratio: 3.14, count: 7, on: true, opts: { a: 1 }, items: [1] });
});

t.test('the content around calls is kept as written: only the call text is cut out', async (t) => {
  const text = 'First part.\n\n<tool_call>{"name": "get_time", "arguments": {}}</tool_call>\n\nSecond part. <tool_call>{"name": "get_time", "arguments": {}}</tool_call> Third.';
  t.equal(parseToolCallsFromText(text, ctx)?.content, 'First part.\n\n\n\nSecond part.  Third.');
});

t.test('calledName records the written name when aliased', async (t) => {
  const result = parseToolCallsFromText('[TOOL_CALLS]functions.get_time{}', ctx);
  t.same(result?.calls, [{ name: 'get_time', arguments: '{}', calledName: 'functions.get_time' }]);
});
