import t from 'tap';
import { argumentsPass, fixHistoryArguments as fixWithBudget } from '../../src/repair/arguments.js';
import { bracketDepth, RepairBudget, REPAIR_MAX_CHARS, REPAIR_MAX_DEPTH, valueDepth } from '../../src/util/bounded-json.js';
import { assistantCalls, call, ctx, deepFreeze, kinds, req, tool, strict } from './helpers.js';

// No budget limit in most tests here (the size and depth bounds are under test); the budget has its own tests below.
// Its clock stands still: no repair time is charged, so a GC pause or a loaded machine cannot spend it.
const unlimited = (): RepairBudget => new RepairBudget({ capacity: Infinity, now: () => 0 });
const budget = unlimited();
const fixArguments = (raw: unknown): ReturnType<typeof fixWithBudget> => fixWithBudget(raw, budget);

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
    const context = { ...ctx(), repairBudget: unlimited() };
    const history = req([assistantCalls(call('a', 'f', "'a".repeat(size / 2)), call('b', 'f', "{'x': 1")), tool('a', ''), tool('b', '')]);
    const out = argumentsPass.run(history, context);
    t.same(kinds(out.findings), ['arguments_wrapped', 'arguments_repaired']);
    return context.repairBudget.charsRepaired;
  };
  t.equal(charsFor(50_000), charsFor(200_000), 'the same work for 50 KB and 200 KB');
  t.equal(charsFor(200_000), "{'x': 1".length, 'only the small one was repaired');
});

// jsonrepair is worse than quadratic on quote-run shapes: `{'a'a'a…}` took 1.1 s at 4 KB (a cap of
// 4,096 let it through, with a burst of four). Such a text a few KB long must never reach it.
t.test("a few KB of {'a'a'a… is wrapped without running jsonrepair", async (t) => {
  for (const shape of [`{'a${"'a".repeat(1500)}}`, `{\`a${'`a'.repeat(1500)}}`]) {
    const before = budget.charsRepaired;
    const out = fixArguments(shape)!;
    t.equal(out.kind, 'arguments_wrapped');
    t.same(JSON.parse(out.value), { raw_arguments: shape }, 'every character kept');
    t.equal(budget.charsRepaired, before, 'jsonrepair was not run');
  }
});

t.test("when a key's repair budget is spent, its arguments are wrapped (busy), never stalled; another key's are still repaired", async (t) => {
  const clock = { now: 1_000 }; // frozen: nothing refills during the test
  const tenantA = new RepairBudget({ now: () => clock.now });
  const tenantB = new RepairBudget({ now: () => clock.now });
  // Worst-case size (the cap), repairable fast: the charge is length², whatever the shape.
  // A new text each time: a repeat would be answered from the tenant's memo, free.
  const worst = (i: number): string => `{"note": "${String(i).padEnd(REPAIR_MAX_CHARS - 10, 'x')}`;
  t.equal(worst(0).length, REPAIR_MAX_CHARS);
  const spent = Array.from({ length: 4 }, (_, i) => fixWithBudget(worst(i), tenantA)!.kind);
  t.same(spent, ['arguments_repaired', 'arguments_repaired', 'arguments_wrapped', 'arguments_wrapped'], 'a burst of two worst cases, then busy');
  const busy = fixWithBudget("{'y': 1", tenantA)!;
  t.equal(busy.kind, 'arguments_wrapped');
  t.match(busy.detail, 'repair budget of this gateway key');
  t.equal(fixWithBudget("{'x': 1", tenantB)!.kind, 'arguments_repaired', "tenant B's own budget is untouched");
  t.equal(fixWithBudget(worst(4), tenantB)!.kind, 'arguments_repaired');
  clock.now += 100; // one worst case refills per 100 ms
  t.equal(fixWithBudget(worst(5), tenantA)!.kind, 'arguments_repaired', 'A refills in time');
  t.equal(fixWithBudget(worst(6), tenantA)!.kind, 'arguments_wrapped');
});

t.test('the pass spends the budget it is given (the request context), not a shared one', async (t) => {
  const drained = new RepairBudget({ capacity: 0 });
  const history = req([assistantCalls(call('a', 'f', "{'x': 1")), tool('a', '')]);
  t.same(kinds(argumentsPass.run(history, { ...ctx(), repairBudget: drained }).findings), ['arguments_wrapped']);
  t.same(kinds(argumentsPass.run(history, ctx()).findings), ['arguments_repaired'], 'a fresh context repairs');
});

t.test('bracketDepth and valueDepth: one pass, strings skipped, stop early', async (t) => {
  t.equal(bracketDepth('{"a":[1,{"b":"[[[["}]}'), 3);
  t.equal(bracketDepth('"\\"{"'), 0, 'escaped quote stays in the string');
  t.equal(bracketDepth('['.repeat(100_000), 10), 11, 'stops past the bound');
  t.equal(valueDepth({ a: [1, { b: [] }] }), 4);
  t.equal(valueDepth(JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown, 64), 65, 'iterative: no stack overflow');
});
