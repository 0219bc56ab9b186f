import t from 'tap';
import type { ChatCompletion, ToolCall } from '../../src/api/chat-types.js';
import { OPENAI_TOOL_NAME_RULE, createNameCodec } from '../../src/toolcalls/name-encoding.js';
import { normalizeCompletion } from '../../src/toolcalls/normalize.js';
import { TOOLS, normalizeContext, tool } from './helpers.js';

function completion(content: string | null, toolCalls?: ToolCall[], finish: 'stop' | 'tool_calls' | 'length' = 'stop'): ChatCompletion {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1,
    model: 'm',
    choices: [{ index: 0, message: { role: 'assistant', content, ...(toolCalls ? { tool_calls: toolCalls } : {}) }, finish_reason: finish }],
    usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}
const call = (id: string, name: string, args: string): ToolCall => ({ id, type: 'function', function: { name, arguments: args } });

t.test('native calls that need nothing pass through as the same object', async (t) => {
  const input = completion(null, [call('call_abcdefghijklmnopqrstuvwx', 'get_weather', '{"city":"SF"}')], 'tool_calls');
  const { completion: out, report } = normalizeCompletion(input, normalizeContext());
  t.equal(out, input);
  t.same(report, { mode: 'native', toolCalls: 1, aliased: [], unknownNames: 0, invalidArguments: 0, repairedArguments: 0, malformedCalls: 0, unchecked: [], cutOff: false });
});

t.test('native calls: names decoded and aliased, ids fixed, arguments kept and checked, finish_reason set', async (t) => {
  const odd = tool('mcp/server:search.docs', { q: { type: 'string' } }, ['q']);
  const tools = [...TOOLS, odd];
  const codec = createNameCodec(tools.map((x) => x.function.name), OPENAI_TOOL_NAME_RULE);
  const encoded = codec.encode('mcp/server:search.docs');
  const input = completion('', [
    call('call_0', encoded, '{"q": "a"}'),
    call('call_0', 'tool_search_procedure', "{'query': 'x'}"),
    call('', 'get_weather', '{"days": "3"}'),
    call('call_zz', 'launch_rockets', '{}'),
  ]);
  const { completion: out, report } = normalizeCompletion(input, normalizeContext(tools, { codec }));
  const calls = out.choices[0].message.tool_calls!;
  t.same(calls.map((c) => c.function.name), ['mcp/server:search.docs', 'search_procedure', 'get_weather', 'launch_rockets']);
  // Native arguments go on as the upstream sent them (a stream cannot rewrite them either): checked, reported.
  t.same(calls.map((c) => c.function.arguments), ['{"q": "a"}', "{'query': 'x'}", '{"days": "3"}', '{}']);
  t.equal(new Set(calls.map((c) => c.id)).size, 4);
  t.notOk(calls.some((c) => c.id === 'call_0' || c.id === ''));
  t.equal(out.choices[0].finish_reason, 'tool_calls');
  t.same(report.aliased, [{ from: 'tool_search_procedure', to: 'search_procedure', how: 'normalized' }]);
  t.equal(report.unknownNames, 1);
  t.equal(report.invalidArguments, 2, 'the single-quoted arguments, and get_weather lacking city');
  t.equal(report.repairedArguments, 0);
  t.equal(input.choices[0].message.tool_calls![0].id, 'call_0', 'input not mutated');
});

t.test('text calls become tool_calls', async (t) => {
  const input = completion('Let me check.\n<tool_call>{"name": "get_weather", "arguments": {"city": "SF", "days": "2"}}</tool_call>\n<tool_call>{"name": "functions.get_time", "arguments": {}}</tool_call>', undefined, 'stop');
  const { completion: out, report } = normalizeCompletion(input, normalizeContext());
  const choice = out.choices[0];
  t.equal(choice.message.content, 'Let me check.\n\n');
  t.equal(choice.finish_reason, 'tool_calls');
  t.same(choice.message.tool_calls!.map((c) => [c.type, c.function.name, c.function.arguments]), [
    ['function', 'get_weather', '{"city":"SF","days":2}'],
    ['function', 'get_time', '{}'],
  ]);
  for (const c of choice.message.tool_calls!) t.match(c.id, /^call_[A-Za-z0-9]{24}$/);
  t.same(report, { mode: 'text', toolCalls: 2, aliased: [{ from: 'functions.get_time', to: 'get_time', how: 'normalized' }], unknownNames: 0, invalidArguments: 0, repairedArguments: 1, malformedCalls: 0, format: 'hermes', unchecked: [], cutOff: false });
  t.equal(out.usage, input.usage);
});

t.test('only calls: content becomes null', async (t) => {
  const { completion: out } = normalizeCompletion(completion("[get_time(zone='UTC')]"), normalizeContext());
  t.equal(out.choices[0].message.content, null);
});

t.test('answers without calls are untouched', async (t) => {
  const ctx = normalizeContext();
  for (const input of [completion('It is sunny in SF.'), completion(null), completion('<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>')]) {
    const { completion: out, report } = normalizeCompletion(input, ctx);
    t.equal(out, input);
    t.equal(report.mode, 'none');
  }
  t.equal(normalizeCompletion(completion('<tool_call>{"name": "launch_rockets", "arguments": {}}</tool_call>'), ctx).report.unknownNames, 1);
});

t.test('text parsing off, or no tools declared: near no-ops', async (t) => {
  const text = completion('<tool_call>{"name": "get_time", "arguments": {}}</tool_call>');
  t.equal(normalizeCompletion(text, normalizeContext(TOOLS, { textParsing: false })).completion, text);
  t.equal(normalizeCompletion(text, normalizeContext([])).completion, text);
  const native = completion(null, [call('call_abcdefghijklmnopqrstuvwx', 'x', '{}')], 'tool_calls');
  const { completion: out, report } = normalizeCompletion(native, normalizeContext([]));
  t.equal(out, native);
  t.equal(report.mode, 'native');
  t.equal(report.unknownNames, 0, 'nothing declared: nothing to compare a name with');
});

t.test('a text call may use the upstream-encoded name', async (t) => {
  const odd = tool('mcp/server:search.docs', { q: { type: 'string' } }, ['q']);
  const codec = createNameCodec(['mcp/server:search.docs'], OPENAI_TOOL_NAME_RULE);
  const text = `<tool_call>{"name": "${codec.encode('mcp/server:search.docs')}", "arguments": {"q": "x"}}</tool_call>`;
  const { completion: out, report } = normalizeCompletion(completion(text), normalizeContext([odd], { codec }));
  t.equal(out.choices[0].message.tool_calls?.[0].function.name, 'mcp/server:search.docs');
  t.same(report.aliased, []);
});

// Issue 45: another MCP server's tool is not the declared one (docs/text-calls.md, names).
t.test("a call to an undeclared server's tool keeps its name: never the declared server's", async (t) => {
  const tools = [tool('mcp__prod__drop_table', { table: { type: 'string' } }, ['table'])];
  const input = completion(null, [call('call_abcdefghijklmnopqrstuvwx', 'mcp__staging__drop_table', '{"table":"users"}')], 'tool_calls');
  const { completion: out, report } = normalizeCompletion(input, normalizeContext(tools));
  t.equal(out.choices[0].message.tool_calls![0].function.name, 'mcp__staging__drop_table');
  t.same(report.aliased, []);
  t.equal(report.unknownNames, 1, 'counted as an unknown name');
});
