import t from 'tap';
import { callIdsPass } from '../../src/repair/call-ids.js';
import { assistantCalls, call, ctx, deepFreeze, kinds, req, tool, user, strict } from './helpers.js';

t.test('unique ids: same object', async (t) => {
  const request = deepFreeze(req([user('q'), assistantCalls(call('a', 'f')), tool('a', 'r'), assistantCalls(call('b', 'f')), tool('b', 'r')]));
  t.equal(callIdsPass.run(request, ctx()).request, request);
});

t.test('"call_0" every turn: later calls and their results renamed consistently', async (t) => {
  const request = deepFreeze(
    req([
      user('q'),
      assistantCalls(call('call_0', 'f')),
      tool('call_0', 'one'),
      assistantCalls(call('call_0', 'g')),
      tool('call_0', 'two'),
      assistantCalls(call('call_0', 'h')),
      tool('call_0', 'three'),
    ]),
  );
  const out = callIdsPass.run(request, ctx());
  const ids = strict(out.request).messages.map((m) => m.tool_calls?.[0].id ?? m.tool_call_id);
  t.same(ids, [undefined, 'call_0', 'call_0', 'call_0_2', 'call_0_2', 'call_0_3', 'call_0_3']);
  t.same(kinds(out.findings), ['duplicate_call_id', 'duplicate_call_id']);
});

t.test('same id twice in one message: results take the occurrences in order', async (t) => {
  const out = callIdsPass.run(req([assistantCalls(call('0', 'f'), call('0', 'g')), tool('0', 'F'), tool('0', 'G')]), ctx());
  t.same(strict(out.request).messages[0].tool_calls!.map((c) => c.id), ['0', '0_2']);
  t.same(out.request.messages.slice(1).map((m) => m.tool_call_id), ['0', '0_2']);
});

t.test('a result placed before a repeated call answers the first occurrence', async (t) => {
  const out = callIdsPass.run(req([tool('0', 'early'), assistantCalls(call('0', 'f')), assistantCalls(call('0', 'g')), tool('0', 'late')]), ctx());
  t.same(strict(out.request).messages.map((m) => m.tool_calls?.[0].id ?? m.tool_call_id), ['0', '0', '0_2', '0_2']);
});

t.test('calls without id: adopt an unclaimed result id after them, else a generated one', async (t) => {
  const out = callIdsPass.run(
    req([
      { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] },
      tool('orphan_id', 'r'),
      { role: 'assistant', content: null, tool_calls: [{ id: '', type: 'function', function: { name: 'g', arguments: '{}' } }] },
    ]),
    ctx(),
  );
  t.equal(strict(out.request).messages[0].tool_calls![0].id, 'orphan_id');
  t.equal(strict(out.request).messages[2].tool_calls![0].id, 'call_2_0');
  t.same(kinds(out.findings), ['missing_call_id', 'missing_call_id']);
});
