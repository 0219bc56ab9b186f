import t from 'tap';
import { toolLoopPass } from '../../src/repair/tool-loop.js';
import { assistantCalls, call, ctx, deepFreeze, req, tool, user } from './helpers.js';

function turns(n: number, args: (i: number) => string) {
  const messages = [user('weather?')];
  for (let i = 0; i < n; i++) messages.push(assistantCalls(call(`c${i}`, 'get_weather', args(i))), tool(`c${i}`, '18C'));
  return messages;
}

t.test('below the threshold or different arguments: nothing', async (t) => {
  const request = deepFreeze(req(turns(2, () => '{"city":"Paris"}')));
  t.same(toolLoopPass.run(request, ctx()).findings, []);
  const varied = req(turns(5, (i) => `{"city":"c${i}"}`));
  t.same(toolLoopPass.run(varied, ctx()).findings, []);
});

t.test('identical arguments (key order, spacing ignored) ≥ threshold: tool_loop, advisory without note', async (t) => {
  const request = deepFreeze(req(turns(3, (i) => (i === 1 ? '{ "unit":"C", "city":"Paris" }' : '{"city":"Paris","unit":"C"}'))));
  const out = toolLoopPass.run(request, ctx());
  t.equal(out.request, request);
  t.match(out.findings, [{ kind: 'tool_loop', index: 5, advisory: true, detail: /get_weather called 3 times/ }]);
});

t.test('loopNote appends one short system note; threshold is configurable', async (t) => {
  const out = toolLoopPass.run(req(turns(2, () => '{}')), ctx({ loopThreshold: 2, loopNote: true }));
  const last = out.request.messages.at(-1)!;
  t.equal(last.role, 'system');
  t.match(last.content, /already called get_weather with arguments \{\} \(2 times\)/);
  t.equal(out.findings[0].advisory, undefined);
});
