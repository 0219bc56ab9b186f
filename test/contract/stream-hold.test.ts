import t from 'tap';
import type { ChatChunk } from '../../src/api/chat-types.js';
import { StreamHold } from '../../src/contract/stream-hold.js';

// The hold on one streamed answer: what goes on at once (the same chunk objects), what waits.

let n = 0;
const chunk = (delta: Record<string, unknown>, finish: string | null = null): ChatChunk => ({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason: finish as null }], n: ++n });

t.test('content goes on as the same objects; calls, finish and usage wait', async (t) => {
  const hold = new StreamHold();
  const text = [chunk({ role: 'assistant', content: '' }), chunk({ content: 'Hi ' })];
  t.equal(hold.pushAll(text), text, 'a batch with nothing to hold is handed on as it is');
  const header = chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' }, extra_content: { google: { thought_signature: 'sig' } } }] });
  const mixed = chunk({ content: 'there', tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] });
  const out = hold.pushAll([header, mixed, chunk({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }), chunk({}, 'tool_calls')]);
  t.same(out.map((c) => c.choices[0].delta), [{ content: 'there' }], 'only the content beside a call goes on');
  t.equal(hold.pushAll([{ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }]).length, 0, 'usage waits');
  const message = hold.messages().get(0)!;
  t.same(message.tool_calls, [{ extra_content: { google: { thought_signature: 'sig' } }, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
  t.equal(message.content, 'Hi there');
  const released = hold.release(new Map([[0, message]]), 'contract_x=1');
  t.same(released[0].choices[0].delta.tool_calls, [{ extra_content: { google: { thought_signature: 'sig' } }, id: 'call_1', index: 0, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }], 'the whole call in one delta, its extra fields kept');
  t.equal(released[1].choices[0].finish_reason, 'tool_calls');
  t.equal(released[1].toolgate_warnings, 'contract_x=1');
  t.same(released[2].usage, { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 });
});

t.test('a judged answer without calls finishes with stop', async (t) => {
  const hold = new StreamHold();
  hold.pushAll([chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'x', arguments: '{}' } }] }), chunk({}, 'tool_calls')]);
  const released = hold.release(new Map([[0, { role: 'assistant', content: null }]]));
  t.same(released.map((c) => c.choices[0].finish_reason), ['stop']);
});

t.test('a cut-off answer keeps its finish reason and says it was cut off', async (t) => {
  const hold = new StreamHold();
  hold.pushAll([chunk({ tool_calls: [{ index: 0, id: 'c', type: 'function', function: { name: 'x', arguments: '{"a":' } }] }), chunk({}, 'length')]);
  t.ok(hold.cutOff());
  const released = hold.release(hold.messages());
  t.same(released.map((c) => c.choices[0].finish_reason), [null, 'length']);
  t.equal(released[0].choices[0].delta.tool_calls?.[0].function?.arguments, '{"a":', 'the arguments as they came');
});

// Issue 45: a custom-tool call's deltas (`custom: {name, input}`) are held and released whole, as a custom call.
t.test('custom-tool calls are held and released as custom calls', async (t) => {
  const hold = new StreamHold();
  const out = hold.pushAll([
    chunk({ role: 'assistant', content: '' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_c', type: 'custom', custom: { name: 'run_python', input: '' } }] }),
    chunk({ tool_calls: [{ index: 0, custom: { input: 'print(' } }] }),
    chunk({ tool_calls: [{ index: 0, custom: { input: '1)' } }] }),
    chunk({}, 'tool_calls'),
  ]);
  t.equal(out.length, 1, 'only the role chunk goes on');
  const message = hold.messages().get(0)!;
  t.same(message.tool_calls, [{ id: 'call_c', type: 'custom', custom: { name: 'run_python', input: 'print(1)' } }]);
  const released = hold.release(new Map([[0, message]]));
  t.same(released[0].choices[0].delta.tool_calls, [{ id: 'call_c', type: 'custom', custom: { name: 'run_python', input: 'print(1)' }, index: 0 }]);
  t.equal(released[1].choices[0].finish_reason, 'tool_calls');
});
