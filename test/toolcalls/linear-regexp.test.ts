import t from 'tap';
import { probeModules } from '../helpers/module-probe.js';

// re2js and the format regexes are loaded and compiled at the first schema that needs them, not
// when the gateway starts (idle heap). An import of re2js anywhere at module level fails the first
// test: the probe sees every ES module resolution, and require.cache every CommonJS load.

const probe = probeModules('/re2js/');

// Imported only now, so the probe sees the whole graph.
const { fixArguments: fixWithBudget } = await import('../../src/toolcalls/arguments.js');
const { RepairBudget } = await import('../../src/util/bounded-json.js');
const budget = new RepairBudget();
const fixArguments = (raw: unknown, schema?: unknown) => fixWithBudget(raw, schema, budget);
const { compileLinear } = await import('../../src/toolcalls/linear-regexp.js');

t.test('re2js is not loaded by importing the argument checks, nor by schemas without patterns or formats', async (t) => {
  const plain = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] };
  t.same(fixArguments('{"city":"Paris","days":"3"}', plain).errors, []);
  await probe.settled();
  t.same(probe.resolved, [], 'no re2js module resolved');
  t.equal(probe.required(), false, 're2js not required');
});

t.test('the first format check loads it, compiles that format once, and checks as before', async (t) => {
  const schema = { type: 'object', properties: { e: { type: 'string', format: 'email' } } };
  t.same(fixArguments('{"e":"a@example.com"}', schema).errors, []);
  t.equal(probe.required(), true, 're2js required at the first format check');
  t.same(fixArguments('{"e":"not an e-mail"}', schema).errors, ['/e must match format "email"']);
  t.same(fixArguments('{"e":"b@example.org"}', schema).errors, [], 'the compiled format is reused');
});

t.test('patterns compile in RE2 once loaded; what RE2 cannot express is refused', async (t) => {
  t.equal(compileLinear('^A(a+)+B$')?.test(`A${'a'.repeat(40)}C`), false);
  t.equal(compileLinear('^caf\\u00e9$', 'i')?.test('CAFÉ'), true);
  t.equal(compileLinear('^(?=.*\\d).{8,}$'), undefined, 'lookahead: no linear-time match');
});
