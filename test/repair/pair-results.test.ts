import t from 'tap';
import { pairResultsPass } from '../../src/repair/pair-results.js';
import { assistant, assistantCalls, call, ctx, deepFreeze, kinds, req, tool, user } from './helpers.js';

const shape = (messages: Array<{ role: string; tool_call_id?: string; content?: unknown }>) =>
  messages.map((m) => (m.role === 'tool' ? `tool:${m.tool_call_id}` : m.role));

t.test('well paired: same object', async (t) => {
  const request = deepFreeze(req([user('q'), assistantCalls(call('a', 'f'), call('b', 'g')), tool('b', '2'), tool('a', '1'), assistant('ok')]));
  t.equal(pairResultsPass.run(request, ctx()).request, request);
});

t.test('one of several parallel calls never answered: a "no result" tool message', async (t) => {
  const out = pairResultsPass.run(deepFreeze(req([user('q'), assistantCalls(call('a', 'f'), call('b', 'g')), tool('a', '1'), user('next')])), ctx({ missingResultText: 'NO RESULT' }));
  t.same(shape(out.request.messages), ['user', 'assistant', 'tool:a', 'tool:b', 'user']);
  t.equal(out.request.messages[3].content, 'NO RESULT');
  t.same(kinds(out.findings), ['missing_tool_result']);
});

t.test('history ending with unanswered calls', async (t) => {
  const out = pairResultsPass.run(req([user('q'), assistantCalls(call('a', 'f'))]), ctx());
  t.same(shape(out.request.messages), ['user', 'assistant', 'tool:a']);
});

t.test('a user message between parallel results: the late result moves up', async (t) => {
  const out = pairResultsPass.run(req([assistantCalls(call('a', 'f'), call('b', 'g')), tool('a', '1'), user('hurry'), tool('b', '2')]), ctx());
  t.same(shape(out.request.messages), ['assistant', 'tool:a', 'tool:b', 'user']);
  t.same(kinds(out.findings), ['moved_tool_result']);
});

t.test('a result placed before its call moves after it', async (t) => {
  const out = pairResultsPass.run(req([user('q'), tool('a', '1'), assistantCalls(call('a', 'f')), assistant('done')]), ctx());
  t.same(shape(out.request.messages), ['user', 'assistant', 'tool:a', 'assistant']);
  t.match(out.findings, [{ kind: 'moved_tool_result', detail: /before its call/ }]);
});

t.test('results separated from their call by another turn', async (t) => {
  const out = pairResultsPass.run(
    req([assistantCalls(call('a', 'f')), user('x'), assistantCalls(call('b', 'g')), tool('b', '2'), tool('a', '1')]),
    ctx(),
  );
  t.same(shape(out.request.messages), ['assistant', 'tool:a', 'user', 'assistant', 'tool:b']);
});

t.test('two results for one call are merged, both texts kept', async (t) => {
  const out = pairResultsPass.run(req([assistantCalls(call('a', 'f')), tool('a', 'first'), tool('a', 'second')]), ctx());
  t.same(shape(out.request.messages), ['assistant', 'tool:a']);
  t.equal(out.request.messages[1].content, 'first\n\nsecond');
  t.same(kinds(out.findings), ['duplicate_tool_result']);
});
