import t from 'tap';
import type { RawChatRequest } from '../../src/api/chat-types.js';
import { isChatRequest, shapeProblems } from '../../src/repair/checked.js';
import { repairRequest } from '../../src/repair/index.js';
import { assistantCalls, call, ctx, tool, user } from './helpers.js';

const raw = (messages: unknown[], extra: Record<string, unknown> = {}): RawChatRequest => ({ model: 'm', messages: messages as RawChatRequest['messages'], ...extra });

t.test('a well-formed request is a ChatRequest; custom calls and non-function tools pass as they are', async (t) => {
  const request = raw([user('q'), assistantCalls(call('a', 'f')), tool('a', 'r'), { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'custom', custom: { name: 'g', input: 'x' } }] }], {
    tools: [{ type: 'function', function: { name: 'f' } }, { type: 'web_search' }],
    tool_choice: 'any',
  });
  t.same(shapeProblems(request), []);
  t.ok(isChatRequest(request));
});

t.test('every promise of ChatRequest is checked', async (t) => {
  const cases: Array<[RawChatRequest, RegExp]> = [
    [raw([{ role: 'user', content: 5 }]), /messages\[0\]\.content/],
    [raw([{ role: 'user', content: [{ text: 'x' }] }]), /messages\[0\]\.content/],
    [raw([{ role: 'user', content: 'q', name: 5 }]), /messages\[0\]\.name/],
    [raw([{ role: 'tool', content: 'r', tool_call_id: 5 }]), /messages\[0\]\.tool_call_id/],
    [raw([{ role: 'assistant', content: 'x', tool_calls: 'abc' }]), /messages\[0\]\.tool_calls is not an array/],
    [raw([{ role: 'assistant', tool_calls: [null] }]), /tool_calls\[0\] is not an object/],
    [raw([{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }]), /no string id/],
    [raw([{ role: 'assistant', tool_calls: [{ id: 'a', type: 'fn', function: { name: 'f', arguments: '{}' } }] }]), /type other than/],
    [raw([{ role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { arguments: '{}' } }] }]), /no function name/],
    [raw([{ role: 'assistant', tool_calls: [{ id: 'a', type: 'function', function: { name: 'f', arguments: { x: 1 } } }] }]), /arguments that are not a string/],
    [raw([user('q')], { tools: [{ function: { name: 'f' } }] }), /tools\[0\] has no type/],
    [raw([user('q')], { tools: [{ type: 'function', function: {} }] }), /tools\[0\] has no function name/],
    [raw([user('q')], { tool_choice: 5 }), /tool_choice/],
  ];
  for (const [request, problem] of cases) {
    t.match(shapeProblems(request).join('; '), problem, JSON.stringify(request));
    t.notOk(isChatRequest(request));
  }
});

t.test('repair never hands on a request the strict type does not describe', async (t) => {
  // Shapes no pass changes: before, the request went on typed as a ChatRequest anyway.
  for (const mode of ['repair', 'strict'] as const) {
    for (const request of [raw([user('q')], { tool_choice: 5 }), raw([{ role: 'user', content: 'q', name: 5 }])]) {
      t.throws(() => repairRequest(request, ctx({ mode })), { status: 400, message: /The request is malformed: 1\) / }, `${mode}: ${JSON.stringify(request)}`);
    }
  }
});
