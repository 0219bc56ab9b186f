import t from 'tap';
import { argumentsPass, fixArguments } from '../../src/repair/arguments.js';
import { assistantCalls, call, ctx, deepFreeze, kinds, req, tool } from './helpers.js';

t.test('valid JSON strings: same object', async (t) => {
  const request = deepFreeze(req([assistantCalls(call('a', 'f', '{"x":1}'), call('b', 'g', '[]')), tool('a', ''), tool('b', '')]));
  t.equal(argumentsPass.run(request, ctx()).request, request);
});

t.test('object → JSON string; empty/null/missing → {}', async (t) => {
  const out = argumentsPass.run(
    deepFreeze(req([assistantCalls(call('a', 'f', { city: 'Paris' }), call('b', 'g', ''), call('c', 'h', null), { id: 'd', type: 'function', function: { name: 'i' } } as never)])),
    ctx(),
  );
  t.same(out.request.messages[0].tool_calls!.map((c) => c.function.arguments), ['{"city":"Paris"}', '{}', '{}', '{}']);
  t.same(kinds(out.findings), ['arguments_stringified', 'arguments_empty', 'arguments_empty', 'arguments_empty']);
});

t.test('invalid JSON repaired, or wrapped when it cannot be', async (t) => {
  t.same(fixArguments("{city: 'Paris',}"), { value: '{"city": "Paris"}', kind: 'arguments_repaired', detail: "invalid JSON {city: 'Paris',} repaired" });
  t.equal(fixArguments('{"a": [1, 2')!.value, '{"a": [1, 2]}');
  const wrapped = fixArguments('{{{');
  t.equal(wrapped!.kind, 'arguments_wrapped');
  t.same(JSON.parse(wrapped!.value), { raw_arguments: '{{{' });
  t.equal(fixArguments('just words')!.kind, 'arguments_wrapped', 'a repair that is not an object is not used');
});
