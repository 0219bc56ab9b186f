import t from 'tap';
import { legacyFunctionsPass } from '../../src/repair/legacy-functions.js';
import { assistant, ctx, deepFreeze, kinds, req, user, strict } from './helpers.js';

t.test('no legacy messages: same object', async (t) => {
  const request = deepFreeze(req([user('hi'), assistant('hello')]));
  t.equal(legacyFunctionsPass.run(request, ctx()).request, request);
});

t.test('function_call + role function → tool_calls + tool with a shared id', async (t) => {
  const request = deepFreeze(
    req([
      user('weather?'),
      { role: 'assistant', content: null, function_call: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { role: 'function', name: 'get_weather', content: '18C' },
    ]),
  );
  const out = legacyFunctionsPass.run(request, ctx());
  const [, a, r] = out.request.messages;
  t.same(a, {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'call_fn_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
  });
  t.same(r, { role: 'tool', name: 'get_weather', content: '18C', tool_call_id: 'call_fn_1' });
  t.same(kinds(out.findings), ['legacy_function_call', 'legacy_function_call']);
});

t.test('object arguments and generated ids that avoid existing ones', async (t) => {
  const out = legacyFunctionsPass.run(
    req([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_fn_1', type: 'function', function: { name: 'x', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'call_fn_1', content: 'ok' },
      { role: 'assistant', content: null, function_call: { name: 'f', arguments: { a: 1 } } },
      { role: 'function', name: 'f', content: 'r' },
    ]),
    ctx(),
  );
  const call = strict(out.request).messages[2].tool_calls![0];
  t.equal(call.function.arguments, '{"a":1}');
  t.equal(call.id, 'call_fn_2');
  t.equal(out.request.messages[3].tool_call_id, 'call_fn_2');
});

t.test('function_call: null is removed; unmatched function result keeps no id', async (t) => {
  const out = legacyFunctionsPass.run(req([{ role: 'assistant', content: 'x', function_call: null }, { role: 'function', name: 'g', content: 'r' }]), ctx());
  t.same(out.request.messages[0], { role: 'assistant', content: 'x' });
  t.same(out.request.messages[1], { role: 'tool', name: 'g', content: 'r' });
});
