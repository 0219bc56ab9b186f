import t from 'tap';
import { checkAnswer, checkArguments, termsOf, type ContractTerms } from '../../src/contract/index.js';
import { RepairBudget } from '../../src/util/bounded-json.js';

// The contract's verdicts on answers, one rule at a time, and the argument rules: only repairs that
// cannot change meaning pass.

const budget = (): RepairBudget => new RepairBudget();
const weather = { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' }, unit: { enum: ['c', 'f'] } }, required: ['city'], additionalProperties: false };
const tools = [
  { type: 'function' as const, function: { name: 'get_weather', parameters: weather } },
  { type: 'function' as const, function: { name: 'get_time', parameters: { type: 'object', properties: { tz: { type: 'string' } } } } },
];
const call = (name: string, args: unknown = { city: 'Paris' }) => ({ name, arguments: typeof args === 'string' ? args : JSON.stringify(args) });
const kinds = (terms: ContractTerms, calls: Array<{ name: string; arguments: string }>) => checkAnswer(terms, calls, budget()).violations.map((v) => v.kind);

t.test('no tools and no tool_choice: nothing to enforce', async (t) => {
  t.equal(termsOf({}), undefined);
  t.equal(termsOf({ tools: [] }), undefined);
  t.ok(termsOf({ tool_choice: 'none' }));
});

t.test('tool_choice rules', async (t) => {
  t.same(kinds(termsOf({ tools, tool_choice: 'none' })!, [call('get_weather')]), ['tool_choice_none']);
  t.same(kinds(termsOf({ tools, tool_choice: 'none' })!, []), []);
  t.same(kinds(termsOf({ tools, tool_choice: 'required' })!, []), ['tool_required']);
  t.same(kinds(termsOf({ tools, tool_choice: 'required' })!, [call('get_time', {})]), []);
  const named = termsOf({ tools, tool_choice: { type: 'function', function: { name: 'get_time' } } })!;
  t.same(kinds(named, [call('get_weather')]), ['wrong_tool']);
  t.same(kinds(named, []), ['tool_required']);
  t.same(kinds(named, [call('get_time', {})]), []);
  const allowed = termsOf({ tools, tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'get_time' } }] } } })!;
  t.same(kinds(allowed, []), [], 'allowed_tools auto: no call is fine');
  t.same(kinds(allowed, [call('get_weather')]), ['wrong_tool']);
  t.same(kinds(termsOf({ tools, tool_choice: 'auto' })!, []), []);
});

t.test('parallel_tool_calls false: at most one call', async (t) => {
  const single = termsOf({ tools, parallel_tool_calls: false })!;
  t.same(kinds(single, [call('get_weather'), call('get_weather', { city: 'Oslo' })]), ['parallel_calls']);
  t.same(kinds(single, [call('get_weather')]), []);
  t.same(kinds(termsOf({ tools })!, [call('get_weather'), call('get_time', {})]), [], 'parallel calls allowed by default');
});

t.test('undeclared tools', async (t) => {
  const verdict = checkAnswer(termsOf({ tools })!, [call('launch_rocket', {})], budget());
  t.same(verdict.violations.map((v) => v.kind), ['undeclared_tool']);
  t.match(verdict.violations[0].message, /"launch_rocket" is not among the declared tools \("get_weather" and "get_time"\)/);
});

t.test('arguments: schema errors are violations with the schema\'s words', async (t) => {
  const terms = termsOf({ tools })!;
  const missing = checkAnswer(terms, [call('get_weather', {})], budget()).violations;
  t.same(missing.map((v) => v.kind), ['invalid_arguments']);
  t.match(missing[0].message, /get_weather.*must have required property 'city'/);
  const extra = checkAnswer(terms, [call('get_weather', { city: 5, zzz: 1 })], budget()).violations;
  t.match(extra[0].message, /\/city must be string/);
  t.match(extra[0].message, /property the schema does not allow: 'zzz'/);
  t.match(checkAnswer(terms, [call('get_weather', { city: 'x', unit: 'k' })], budget()).violations[0].message, /\/unit must be one of \["c","f"\]/);
  t.same(kinds(terms, [call('get_weather', '[1,2]')]), ['invalid_arguments'], 'not an object');
  t.same(kinds(terms, [call('get_weather', 'city=Paris')]), ['invalid_arguments'], 'not JSON, not repairable into an object');
});

t.test('arguments: only meaning-preserving repairs pass', async (t) => {
  const schema = weather;
  const numeric = checkArguments('{"city":"Paris","days":"3"}', schema, budget());
  t.same(numeric, { valid: true, arguments: '{"city":"Paris","days":3}', repairs: ['coerced'] }, 'a number in a string where an integer is wanted');
  t.same(checkArguments('{"city":"Paris","days":"3.5"}', schema, budget()).valid, false, 'not an integer');
  t.same(checkArguments('{"city": 5}', schema, budget()).valid, false, 'a number where a string is wanted is not converted');
  const syntax = checkArguments("{'city': 'Paris',}", schema, budget());
  t.same(syntax, { valid: true, arguments: '{"city":"Paris"}', repairs: ['syntax'] }, 'JSON syntax repaired');
  const kept = checkArguments('{"city": "Paris"}', schema, budget());
  t.same(kept, { valid: true, arguments: '{"city": "Paris"}', repairs: [] }, 'valid text kept byte for byte');
  t.same(checkArguments(JSON.stringify(JSON.stringify({ city: 'Paris' })), schema, budget()).valid, true, 'double-encoded');
  t.same(checkArguments('', { type: 'object', properties: {} }, budget()), { valid: true, arguments: '{}', repairs: ['syntax'] });
  t.same(checkArguments('{"a":1}', undefined, budget()).valid, true, 'no schema: any object');
  // Text cut off before its end is not a slip of syntax: completing it guesses what was meant.
  for (const cut of ['{"city": "Par', '{"city": "Paris"', '{"city": "Paris", "days": [1, 2', '{"city": "Paris",']) {
    t.same(checkArguments(cut, schema, budget()), { valid: false, problems: ['the arguments are cut off before their end (an unterminated JSON object)'] }, `cut off: ${cut}`);
  }
});

t.test('arguments: "true"/"false" where the schema wants a boolean are converted; other words are not', async (t) => {
  const schema = { type: 'object', properties: { metric: { type: 'boolean' }, days: { type: 'integer' } }, required: ['metric'] };
  t.same(checkArguments('{"metric":"true"}', schema, budget()), { valid: true, arguments: '{"metric":true}', repairs: ['coerced'] });
  t.same(checkArguments('{"metric":"false","days":"2",}', schema, budget()), { valid: true, arguments: '{"metric":false,"days":2}', repairs: ['syntax', 'coerced'] });
  for (const word of ['yes', 'True', '1', '']) t.equal(checkArguments(JSON.stringify({ metric: word }), schema, budget()).valid, false, `"${word}" is not a boolean`);
  t.equal(checkArguments('{"metric":1}', schema, budget()).valid, false, 'a number is not a boolean');
});

t.test('checkAnswer lists the calls accepted only after a repair, with the repaired text', async (t) => {
  const terms = termsOf({ tools })!;
  const checked = checkAnswer(terms, [call('get_weather', '{"city":"Paris"}'), call('get_weather', '{"city":"Oslo",}')], budget());
  t.same(checked.violations, []);
  t.same(checked.repaired, [{ index: 1, arguments: '{"city":"Oslo"}', repairs: ['syntax'] }]);
});

t.test('nested objects and arrays are checked', async (t) => {
  const schema = { type: 'object', properties: { stops: { type: 'array', items: { type: 'object', properties: { at: { type: 'number' } }, required: ['at'] } } }, required: ['stops'] };
  t.same(checkArguments('{"stops":[{"at":"1.5"}]}', schema, budget()), { valid: true, arguments: '{"stops":[{"at":1.5}]}', repairs: ['coerced'] });
  const broken = checkArguments('{"stops":[{}]}', schema, budget());
  t.equal(broken.valid, false);
  if (!broken.valid) t.match(broken.problems[0], /\/stops\/0 must have required property 'at'/);
});

t.test('format is an annotation: a mismatch alone is no violation; other problems are named without it', async (t) => {
  const schema = { type: 'object', properties: { when: { type: 'string', format: 'date-time' }, mail: { type: 'string', format: 'email' }, seats: { type: 'integer' } }, required: ['when'] };
  t.same(checkArguments('{"when":"2025-06-01T10:00:00"}', schema, budget()), { valid: true, arguments: '{"when":"2025-06-01T10:00:00"}', repairs: [] }, 'a date-time without its offset');
  t.equal(checkArguments('{"when":"next tuesday","mail":"someone"}', schema, budget()).valid, true, 'any format mismatch');
  t.same(checkArguments('{"when":"2025-06-01T10:00","seats":"2"}', schema, budget()), { valid: true, arguments: '{"when":"2025-06-01T10:00","seats":2}', repairs: ['coerced'] }, 'beside a harmless coercion');
  const broken = checkArguments('{"when":"soon","seats":"two"}', schema, budget());
  t.same(broken, { valid: false, problems: ['/seats must be integer'] }, 'the real problem, without the format');
  const terms = termsOf({ tools: [{ type: 'function', function: { name: 'book', parameters: schema } }] })!;
  t.same(kinds(terms, [call('book', { when: '2025-06-01T10:00:00' })]), []);
});

// Issue 45: a declared custom tool is a declared tool; its input is free text, never "not a JSON object".
t.test('custom tools: declared, named by tool_choice and allowed_tools, input not read as JSON', async (t) => {
  const custom = { type: 'custom', custom: { name: 'run_python', format: { type: 'text' } } };
  const terms = termsOf({ tools: [...tools, custom as never] })!;
  t.same(kinds(terms, [call('run_python', 'print(1)')]), []);
  t.same(kinds(terms, [call('run_ruby', 'puts 1')]), ['undeclared_tool']);
  const named = termsOf({ tools: [...tools, custom as never], tool_choice: { type: 'custom', custom: { name: 'run_python' } } })!;
  t.same(named.rule, { kind: 'only', names: ['run_python'], required: true });
  t.same(kinds(named, [call('get_weather')]), ['wrong_tool']);
  const allowed = termsOf({ tools: [...tools, custom as never], tool_choice: { type: 'allowed_tools', allowed_tools: { mode: 'auto', tools: [{ type: 'custom', custom: { name: 'run_python' } }] } } })!;
  t.same(allowed.rule, { kind: 'only', names: ['run_python'], required: false });
});
