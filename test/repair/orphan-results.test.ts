import t from 'tap';
import { orphanResultsPass } from '../../src/repair/orphan-results.js';
import { assistant, assistantCalls, call, ctx, deepFreeze, kinds, req, tool, user } from './helpers.js';

t.test('answered results: same object', async (t) => {
  const request = deepFreeze(req([assistantCalls(call('a', 'f')), tool('a', 'r')]));
  t.equal(orphanResultsPass.run(request, ctx()).request, request);
});

t.test('orphans become user messages that keep content, name and id', async (t) => {
  const out = orphanResultsPass.run(
    deepFreeze(req([user('q'), assistant(''), tool(undefined, 'sunny, 18C'), tool('call_x', 'second', { name: 'get_time' })])),
    ctx(),
  );
  const [, , a, b] = out.request.messages;
  t.equal(a.role, 'user');
  t.match(a.content, /^\[Tool result; the tool call it answers is not in this conversation\]\nsunny, 18C$/);
  t.equal(b.role, 'user');
  t.match(b.content, /from 'get_time' \(call id call_x\).*\nsecond$/);
  t.same(kinds(out.findings), ['orphan_tool_result', 'orphan_tool_result']);
});

t.test('part content stays parts, with a header part', async (t) => {
  const out = orphanResultsPass.run(req([tool('zz', [{ type: 'text', text: 'partial' }])]), ctx());
  t.same(out.request.messages[0].content, [
    { type: 'text', text: '[Tool result (call id zz); the tool call it answers is not in this conversation]' },
    { type: 'text', text: 'partial' },
  ]);
});
