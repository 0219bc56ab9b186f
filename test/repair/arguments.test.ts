import t from 'tap';
import { argumentsPass, fixArguments } from '../../src/repair/arguments.js';
import { bracketDepth, repairWork, REPAIR_MAX_CHARS, REPAIR_MAX_DEPTH, valueDepth } from '../../src/repair/bounded-json.js';
import { assistantCalls, call, ctx, deepFreeze, kinds, req, tool, strict } from './helpers.js';

t.test('valid JSON strings: same object', async (t) => {
  const request = deepFreeze(req([assistantCalls(call('a', 'f', '{"x":1}'), call('b', 'g', '[]')), tool('a', ''), tool('b', '')]));
  t.equal(argumentsPass.run(request, ctx()).request, request);
});

t.test('object → JSON string; empty/null/missing → {}', async (t) => {
  const out = argumentsPass.run(
    deepFreeze(req([assistantCalls(call('a', 'f', { city: 'Paris' }), call('b', 'g', ''), call('c', 'h', null), { id: 'd', type: 'function', function: { name: 'i' } } as never)])),
    ctx(),
  );
  t.same(strict(out.request).messages[0].tool_calls!.map((c) => c.function.arguments), ['{"city":"Paris"}', '{}', '{}', '{}']);
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

// Issue 14: 250 KB of 'a'a'a… took 23 s in jsonrepair (quadratic on some shapes).
t.test('repair is bounded: text over the size or depth limit is wrapped without trying, and says why', async (t) => {
  const almost = `{"path": "a.txt", "content": "${'x'.repeat(REPAIR_MAX_CHARS)}"`; // repairable, but over the limit
  const big = fixArguments(almost)!;
  t.equal(big.kind, 'arguments_wrapped');
  t.same(JSON.parse(big.value), { raw_arguments: almost }, 'every character kept');
  t.match(big.detail, `over the repair limit of ${REPAIR_MAX_CHARS}`);
  const small = fixArguments(`{"path": "a.txt", "content": "${'x'.repeat(100)}"`)!;
  t.equal(small.kind, 'arguments_repaired', 'the same shape under the limit is still repaired');
  const deep = fixArguments('{"a":'.repeat(REPAIR_MAX_DEPTH + 1))!;
  t.equal(deep.kind, 'arguments_wrapped');
  t.match(deep.detail, 'nested deeper than the repair limit');
});

t.test('jsonrepair never sees more than the limit, whatever the size: work grows with the number of calls only', async (t) => {
  const charsFor = (size: number): number => {
    repairWork.tokens = Number.MAX_SAFE_INTEGER;
    const before = repairWork.charsRepaired;
    const history = req([assistantCalls(call('a', 'f', "'a".repeat(size / 2)), call('b', 'f', "{'x': 1")), tool('a', ''), tool('b', '')]);
    const out = argumentsPass.run(history, ctx());
    t.same(kinds(out.findings), ['arguments_wrapped', 'arguments_repaired']);
    return repairWork.charsRepaired - before;
  };
  t.equal(charsFor(50_000), charsFor(200_000), 'the same work for 50 KB and 200 KB');
  t.equal(charsFor(200_000), "{'x': 1".length, 'only the small one was repaired');
});

// jsonrepair is worse than quadratic on quote-run shapes: `{'a'a'a…}` took 1.1 s at 4 KB (a cap of
// 4,096 let it through, with a burst of four). Such a text a few KB long must never reach it.
t.test("a few KB of {'a'a'a… is wrapped without running jsonrepair", async (t) => {
  repairWork.tokens = Number.MAX_SAFE_INTEGER;
  for (const shape of [`{'a${"'a".repeat(1500)}}`, `{\`a${'`a'.repeat(1500)}}`]) {
    const before = repairWork.charsRepaired;
    const out = fixArguments(shape)!;
    t.equal(out.kind, 'arguments_wrapped');
    t.same(JSON.parse(out.value), { raw_arguments: shape }, 'every character kept');
    t.equal(repairWork.charsRepaired, before, 'jsonrepair was not run');
  }
});

t.test('when the gateway-wide repair budget is spent, arguments are wrapped (busy), never stalled', async (t) => {
  repairWork.tokens = -1e15; // refills long after this test
  const busy = fixArguments("{'x': 1")!;
  t.equal(busy.kind, 'arguments_wrapped');
  t.match(busy.detail, 'budget');
  repairWork.tokens = Number.MAX_SAFE_INTEGER;
  t.equal(fixArguments("{'x': 1")!.kind, 'arguments_repaired');
});

t.test('bracketDepth and valueDepth: one pass, strings skipped, stop early', async (t) => {
  t.equal(bracketDepth('{"a":[1,{"b":"[[[["}]}'), 3);
  t.equal(bracketDepth('"\\"{"'), 0, 'escaped quote stays in the string');
  t.equal(bracketDepth('['.repeat(100_000), 10), 11, 'stops past the bound');
  t.equal(valueDepth({ a: [1, { b: [] }] }), 4);
  t.equal(valueDepth(JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown, 64), 65, 'iterative: no stack overflow');
});
