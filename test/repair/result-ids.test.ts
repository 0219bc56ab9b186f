import t from 'tap';
import { resultIdsPass } from '../../src/repair/result-ids.js';
import { assistantCalls, call, ctx, deepFreeze, kinds, req, tool, user } from './helpers.js';

t.test('all results have ids: same object', async (t) => {
  const request = deepFreeze(req([assistantCalls(call('a', 'f')), tool('a', 'r')]));
  t.equal(resultIdsPass.run(request, ctx()).request, request);
});

t.test('by position when no names', async (t) => {
  const out = resultIdsPass.run(deepFreeze(req([user('q'), assistantCalls(call('a', 'f'), call('b', 'g')), tool(undefined, 'F'), tool(undefined, 'G')])), ctx());
  t.same(out.request.messages.slice(2).map((m) => m.tool_call_id), ['a', 'b']);
  t.same(kinds(out.findings), ['missing_tool_call_id', 'missing_tool_call_id']);
});

t.test('by name first (results out of call order), skipping calls already answered', async (t) => {
  const out = resultIdsPass.run(
    req([assistantCalls(call('a', 'f'), call('b', 'g'), call('c', 'h')), tool('a', 'F'), tool(undefined, 'H', { name: 'h' }), tool(undefined, 'G', { name: 'g' })]),
    ctx(),
  );
  t.same(out.request.messages.slice(1).map((m) => m.tool_call_id), ['a', 'c', 'b']);
  t.notOk(kinds(out.findings).includes('ambiguous_tool_result'));
});

t.test('ambiguity is a finding: same-name calls, unknown name, count mismatch', async (t) => {
  const same = resultIdsPass.run(req([assistantCalls(call('a', 's'), call('b', 's')), tool(undefined, '1', { name: 's' }), tool(undefined, '2', { name: 's' })]), ctx());
  t.same(same.request.messages.slice(1).map((m) => m.tool_call_id), ['a', 'b']);
  t.ok(kinds(same.findings).includes('ambiguous_tool_result'));

  const unknown = resultIdsPass.run(req([assistantCalls(call('a', 'f')), tool(undefined, 'x', { name: 'zzz' })]), ctx());
  t.equal(unknown.request.messages[1].tool_call_id, 'a');
  t.match(unknown.findings, [{ kind: 'missing_tool_call_id' }, { kind: 'ambiguous_tool_result', detail: /no open call is named 'zzz'/ }]);

  const fewer = resultIdsPass.run(req([assistantCalls(call('a', 'f'), call('b', 'g')), tool(undefined, 'x')]), ctx());
  t.match(fewer.findings, [{ kind: 'missing_tool_call_id' }, { kind: 'ambiguous_tool_result', detail: /1 id-less results for 2 open calls/ }]);
});

t.test('no open call to take: left alone for the orphan pass', async (t) => {
  const request = req([user('q'), tool(undefined, 'r')]);
  t.equal(resultIdsPass.run(request, ctx()).request, request);
  const extra = resultIdsPass.run(req([assistantCalls(call('a', 'f')), tool(undefined, '1'), tool(undefined, '2')]), ctx());
  t.same(extra.request.messages.slice(1).map((m) => m.tool_call_id), ['a', undefined]);
});
