import t from 'tap';
import { DEFAULT_REPAIR_OPTIONS } from '../../src/repair/index.js';
import { itemContentPass, itemOutputsPass, itemTypesPass, repairItems } from '../../src/responses/repair-items.js';
import { parseResponsesRequest } from '../../src/responses/schema.js';
import type { Item } from '../../src/api/responses-types.js';
import { GatewayError } from '../../src/errors.js';

const kinds = (findings: Array<{ kind: string }>): string[] => findings.map((f) => f.kind);

t.test('item-types: infers the type from the shape', async (t) => {
  const items: Item[] = [
    { role: 'user', content: 'hi' },
    { call_id: 'call_1', name: 'read_file', arguments: '{}' },
    { call_id: 'call_1', output: 'lines 1-250' },
    { id: 'msg_abc' },
    { type: 'message', role: 'assistant', content: 'done' },
  ];
  const result = itemTypesPass.run(items);
  t.same(result.items.map((i) => i.type), ['message', 'function_call', 'function_call_output', 'item_reference', 'message']);
  // {role, content} is OpenAI's own easy input message: typed, but not a finding.
  t.same(result.findings.map((f) => f.index), [1, 2, 3]);
  t.equal(result.items[4], items[4], 'typed items untouched');
  t.not(result.items, items, 'the input list is not mutated');
  t.equal(items[2].type, undefined);
});

t.test('item-types: chat-shaped messages become Responses items', async (t) => {
  const result = itemTypesPass.run([
    { role: 'assistant', content: 'Reading.', tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'read_file', arguments: '{"a":1}' } }] },
    { role: 'tool', tool_call_id: 'call_9', content: 'data' },
  ]);
  t.same(result.items, [
    { type: 'message', role: 'assistant', content: 'Reading.' },
    { type: 'function_call', call_id: 'call_9', name: 'read_file', arguments: '{"a":1}' },
    { type: 'function_call_output', call_id: 'call_9', output: 'data' },
  ]);
  t.same(kinds(result.findings), ['item_type_inferred', 'item_type_inferred']);
});

t.test('item-types: an item that says nothing is a 400 naming it', async (t) => {
  const error = (() => {
    try {
      itemTypesPass.run([{ role: 'user', content: 'x' }, { foo: 1 }]);
    } catch (e) {
      return e;
    }
  })() as GatewayError;
  t.type(error, GatewayError);
  t.equal(error.status, 400);
  t.equal(error.param, 'input[1]');
});

t.test('item-content: part types by role, strings, null', async (t) => {
  const result = itemContentPass.run([
    { type: 'message', role: 'user', content: [{ type: 'text', text: 'a' }, 'b', { type: 'output_text', text: 'c', annotations: [] }] },
    { type: 'message', role: 'assistant', content: [{ type: 'input_text', text: 'd' }] },
    { type: 'message', role: 'system', content: null },
    { type: 'message', role: 'user', content: 'fine' },
    { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'fine', annotations: [] }] },
  ]);
  t.same(result.items[0].content, [
    { type: 'input_text', text: 'a' },
    { type: 'input_text', text: 'b' },
    { type: 'input_text', text: 'c' },
  ]);
  t.same(result.items[1].content, [{ type: 'output_text', text: 'd', annotations: [] }]);
  t.equal(result.items[2].content, '');
  t.same(result.findings.map((f) => f.index), [0, 1, 2]);
});

t.test('item-outputs: objects become strings, arguments too', async (t) => {
  const result = itemOutputsPass.run([
    { type: 'function_call', call_id: 'c1', name: 'f', arguments: { path: 'x' } },
    { type: 'function_call_output', call_id: 'c1', output: { lines: 3 } },
    { type: 'function_call_output', call_id: 'c2', output: null },
    { type: 'function_call_output', call_id: 'c3', output: [{ type: 'input_text', text: 'ok' }] },
    { type: 'function_call', call_id: 'c4', name: 'f', arguments: '' },
  ]);
  t.equal(result.items[0].arguments, '{"path":"x"}');
  t.equal(result.items[1].output, '{"lines":3}');
  t.equal(result.items[2].output, '');
  t.same(result.items[3].output, [{ type: 'input_text', text: 'ok' }], 'part lists are valid outputs');
  t.equal(result.items[4].arguments, '{}');
  t.same(kinds(result.findings), ['arguments_stringified', 'tool_output_stringified', 'tool_output_stringified', 'arguments_stringified']);
});

t.test('repairItems: passes in order, disabled passes, strict mode', async (t) => {
  const items: Item[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }, { call_id: 'c', name: 'f', arguments: {} }, { call_id: 'c', output: 5 }];
  const result = repairItems(items, DEFAULT_REPAIR_OPTIONS);
  t.same(kinds(result.findings), ['item_type_inferred', 'item_type_inferred', 'message_content_fixed', 'arguments_stringified', 'tool_output_stringified']);
  t.equal(result.items[2].output, '5');
  t.same(repairItems([{ role: 'user', content: 'hi' }], { ...DEFAULT_REPAIR_OPTIONS, mode: 'strict' }).findings, [], 'strict mode passes an easy input message');

  const some = repairItems(items, { ...DEFAULT_REPAIR_OPTIONS, disabled: new Set(['item-content', 'item-outputs']) });
  t.same(some.items[0].content, [{ type: 'text', text: 'hi' }], 'disabled pass left alone');

  t.throws(() => repairItems(items, { ...DEFAULT_REPAIR_OPTIONS, mode: 'strict' }), { status: 400, code: 'invalid_tool_history', param: 'input' });
  const clean: Item[] = [{ type: 'message', role: 'user', content: 'hi' }];
  t.equal(repairItems(clean, { ...DEFAULT_REPAIR_OPTIONS, mode: 'strict' }).items, clean, 'strict mode passes clean input');
  t.throws(() => repairItems([{ type: 'function_call', name: 'f', arguments: '{}' }], DEFAULT_REPAIR_OPTIONS), { param: 'input[0].call_id', code: 'missing_required_parameter' });
  t.throws(() => repairItems([{ type: 'message', role: 'tool', content: 'x' }], DEFAULT_REPAIR_OPTIONS), { name: 'GatewayError', param: 'input[0].role' });
});

t.test('parseResponsesRequest: strict where needed, lenient elsewhere', async (t) => {
  t.throws(() => parseResponsesRequest({ input: 'hi' }), { status: 400, param: 'model', message: "Missing required parameter: 'model'." });
  t.throws(() => parseResponsesRequest({ model: 'm', tool_choice: 'sometimes' }), { name: 'GatewayError', param: 'tool_choice' });
  t.throws(() => parseResponsesRequest({ model: 'm', temperature: 3 }), { name: 'GatewayError', param: 'temperature' });
  t.throws(() => parseResponsesRequest({ model: 'm', tools: [{ type: 'function', parameters: {} }] }), { name: 'GatewayError', param: 'tools[0].name' });
  t.throws(() => parseResponsesRequest([]), { code: 'invalid_body' });
  const parsed = parseResponsesRequest({
    model: 'm',
    input: 'hello',
    instructions: null,
    store: null,
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' }, strict: null } }, { type: 'function', name: 'g', strict: false, defer_loading: true }],
    tool_choice: { type: 'function', function: { name: 'f' } },
    some_future_field: { x: 1 },
  });
  t.same(parsed.input, [{ type: 'message', role: 'user', content: 'hello' }], 'a string input is one user message');
  t.notOk('instructions' in parsed || 'store' in parsed, 'nulls mean absent');
  t.same(parsed.tools, [{ type: 'function', name: 'f', parameters: { type: 'object' } }, { type: 'function', name: 'g', strict: false, defer_loading: true }], 'chat-shaped tools flattened, flat kept');
  t.same(parsed.tool_choice, { type: 'function', name: 'f' });
  t.same(parsed.some_future_field, { x: 1 }, 'unknown fields pass through');
});
