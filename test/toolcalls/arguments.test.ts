import t from 'tap';
import { withCallsCounted } from '../helpers/count-calls.js';
import { fastestCpuMs, growthRatio } from '../helpers/growth.js';
import { COMPILE_BURST_CHARS, COMPILE_CHARS_PER_MS, RepairBudget } from '../../src/util/bounded-json.js';
import * as checks from '../../src/toolcalls/arguments.js';
import { MAX_SCHEMA_CHARS, MAX_VALIDATED_CHARS, validatorFor } from '../../src/toolcalls/arguments.js';

// One tenant's budget (the default size) for the whole file, as one gateway key would have.
const budget = new RepairBudget();
const fixArguments = (raw: unknown, schema?: unknown): checks.ArgumentsResult => checks.fixArguments(raw, schema, budget);
const toArgumentsJson = (raw: unknown): string => checks.toArgumentsJson(raw, budget);

const schema = {
  type: 'object',
  properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' }, ratio: { type: 'number' }, tags: { type: 'array', items: { type: 'string' } }, nested: { type: 'object', properties: { n: { type: 'integer' } } } },
  required: ['city'],
  additionalProperties: false,
};

t.test('always a JSON object string', async (t) => {
  t.equal(toArgumentsJson({ a: 1 }), '{"a":1}', 'object → string');
  t.equal(toArgumentsJson('{"a": 1}'), '{"a": 1}', 'valid text kept byte for byte');
  t.equal(toArgumentsJson(''), '{}', 'empty → {}');
  t.equal(toArgumentsJson('   '), '{}');
  t.equal(toArgumentsJson(undefined), '{}');
  t.equal(toArgumentsJson('null'), '{}');
  t.equal(toArgumentsJson('"{\\"a\\": 1}"'), '{"a":1}', 'double-encoded is unwrapped');
});

t.test('invalid JSON is repaired when possible', async (t) => {
  const cases: Array<[string, unknown]> = [
    ["{'city': 'SF'}", { city: 'SF' }],
    ['{"city": "SF",}', { city: 'SF' }],
    ['{city: "SF"}', { city: 'SF' }],
    ['{"ok": True, "v": None}', { ok: true, v: null }],
    ['{"city": "SF"', { city: 'SF' }],
  ];
  for (const [raw, expected] of cases) {
    const fixed = fixArguments(raw);
    t.same(JSON.parse(fixed.arguments), expected, raw);
    t.equal(fixed.repaired, true);
  }
});

t.test('unrepairable text is wrapped (documented)', async (t) => {
  const single = { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] };
  const intoParameter = fixArguments('how do I reset it?', single);
  t.same(JSON.parse(intoParameter.arguments), { query: 'how do I reset it?' }, 'into the single required string parameter');
  t.equal(intoParameter.wrapped, true);
  t.same(intoParameter.errors, []);
  const two = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } }, required: ['a', 'b'], additionalProperties: false };
  const raw = fixArguments('[1, 2]', two);
  t.same(JSON.parse(raw.arguments), { raw_arguments: [1, 2] }, 'otherwise under raw_arguments');
  t.ok(raw.errors.length > 0, 'and reported as invalid');
});

t.test('validation and unambiguous coercion', async (t) => {
  const ok = fixArguments('{"city": "SF", "days": 3}', schema);
  t.same(ok.errors, []);
  t.equal(ok.arguments, '{"city": "SF", "days": 3}');

  const coerced = fixArguments('{"city": 94105, "days": "5", "metric": "true", "ratio": "0.5", "tags": "[\\"a\\"]", "nested": {"n": "7"}}', schema);
  t.same(JSON.parse(coerced.arguments), { city: '94105', days: 5, metric: true, ratio: 0.5, tags: ['a'], nested: { n: 7 } });
  t.equal(coerced.coerced, true);
  t.same(coerced.errors, []);

  const ambiguous = fixArguments('{"city": "SF", "days": "five", "metric": "yes"}', schema);
  t.same(JSON.parse(ambiguous.arguments), { city: 'SF', days: 'five', metric: 'yes' }, 'not coerced');
  t.equal(ambiguous.errors.length, 2);

  const missing = fixArguments('{}', schema);
  t.match(missing.errors[0], /city/);
  const extra = fixArguments('{"city": "SF", "zip": 1}', schema);
  t.match(extra.errors[0], /additional/);
});

t.test('schemas compile once; odd schemas do not throw', async (t) => {
  t.equal(validatorFor(schema, budget), validatorFor(schema, budget), 'same object → same validator');
  t.equal(validatorFor(structuredClone(schema), budget), validatorFor(schema, budget), 'equal schema text → same validator');
  const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', type: 'object', properties: { a: { type: 'string', format: 'email' } } };
  t.same(fixArguments('{"a": "not-an-email"}', draft2020).errors.length, 1);
  t.same(fixArguments('{"a": 1}', { type: 'object', properties: { a: { $ref: '#/nope' } } }).errors, [], 'an uncompilable schema skips validation');
});

// Issue 14: a client schema's `pattern: "^A(a+)+B$"` backtracked exponentially in ajv when the
// model's arguments were checked (27 characters: 6 s). Patterns run in RE2 now; the input below
// would take hours with the backtracking engine.
t.test('client patterns run in a linear-time engine, patternProperties and propertyNames too', async (t) => {
  const evil = `A${'a'.repeat(40)}!`;
  const pattern = { type: 'object', properties: { s: { type: 'string', pattern: '^A(a+)+B$' } } };
  t.same(fixArguments(JSON.stringify({ s: evil }), pattern).errors, ['/s must match pattern "^A(a+)+B$"']);
  t.same(fixArguments(JSON.stringify({ s: 'AaaB' }), pattern).errors, [], 'matches still match');
  const props = { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } }, propertyNames: { pattern: '^(a|aa)+$' } };
  t.match(fixArguments(JSON.stringify({ [`${'a'.repeat(40)}b`]: 1 }), props).errors.join(' '), 'must match pattern "^(a|aa)+$"', 'propertyNames checked');
  t.same(fixArguments(JSON.stringify({ xxy: 'no' }), { type: 'object', patternProperties: { '^(x+x+)+y$': { type: 'number' } } }).errors, ['/xxy must be number']);
  const unicode = { type: 'object', properties: { s: { type: 'string', pattern: '^caf\\u00e9$' } } };
  t.same(fixArguments('{"s":"café"}', unicode).errors, [], 'ECMAScript \\u escapes are understood');
});

t.test('patterns RE2 cannot run are not checked at all, and the result says so', async (t) => {
  const schema = { type: 'object', properties: { pw: { type: 'string', pattern: '^(?=.*\\d).{8,}$' }, twice: { type: 'string', pattern: '^(a+)\\1$' } } };
  const result = fixArguments('{"pw":"no digits here","twice":"ab"}', schema);
  t.same(result.errors, [], 'lookahead and backreference: skipped, not run by a backtracking engine');
  t.equal(result.unchecked.length, 2);
  t.match(result.unchecked[0], /not checked/);
  t.same(fixArguments('{"n":"x"}', { type: 'object', properties: { n: { type: 'number' } } }).unchecked, [], 'nothing skipped: empty');
});

t.test('format regexes are linear or length-capped', async (t) => {
  const schema = { type: 'object', properties: { e: { type: 'string', format: 'email' }, h: { type: 'string', format: 'hostname' }, u: { type: 'string', format: 'url' } } };
  t.same(fixArguments('{"e":"a@b.co","h":"example.com","u":"https://example.com/x"}', schema).errors, []);
  t.equal(fixArguments('{"e":"nope","h":"-bad-","u":"nope"}', schema).errors.length, 3);
  const long = `${'a-'.repeat(50_000)}`;
  t.same(fixArguments(JSON.stringify({ h: long, u: `http://${long}` }), schema).errors, [], 'over the native cap: not checked');
});

t.test('size caps: big arguments and big schemas are passed on without a schema check, noted', async (t) => {
  const schema = { type: 'object', properties: { s: { type: 'number' } } };
  const big = fixArguments(JSON.stringify({ s: 'x'.repeat(MAX_VALIDATED_CHARS) }), schema);
  t.same(big.errors, []);
  t.match(big.unchecked[0], `schema-check limit of ${MAX_VALIDATED_CHARS}`);
  const hugeSchema = { type: 'object', properties: Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'string', description: 'd'.repeat(20) }])) };
  const result = fixArguments('{"p1": 5}', hugeSchema);
  t.same(result.errors, []);
  t.match(result.unchecked[0], `schema-check limit of ${MAX_SCHEMA_CHARS}`);
});

t.test("a tenant's schema compiles are paid by length: past its budget a new schema goes unchecked, said so; others still compile", async (t) => {
  const clock = { now: 1_000 }; // frozen: nothing refills during the test
  const tenantA = new RepairBudget({ now: () => clock.now });
  const tenantB = new RepairBudget({ now: () => clock.now });
  // A new schema each time (a new text), just under the size cap.
  const schemaOf = (i: number): Record<string, unknown> => ({
    type: 'object',
    properties: { n: { type: 'integer', minimum: i }, pad: { type: 'string', description: 'd'.repeat(MAX_SCHEMA_CHARS - 200) } },
  });
  const compiledBy = (budget: RepairBudget, i: number): checks.CompiledSchema => validatorFor(schemaOf(i), budget);
  const burst = Math.floor(COMPILE_BURST_CHARS / JSON.stringify(schemaOf(0)).length);
  for (let i = 0; i < burst; i++) t.ok(compiledBy(tenantA, i).validate, `schema ${i} compiled`);
  const busy = compiledBy(tenantA, burst);
  t.equal(busy.validate, undefined, 'the next one is not compiled');
  t.match(busy.unchecked[0], 'schema-check budget of this gateway key');
  t.same(checks.fixArguments('{"n": "x"}', schemaOf(burst), tenantA).errors, [], 'its arguments pass unchecked');
  t.ok(compiledBy(tenantA, 0).validate, 'a schema compiled before is still checked');
  t.ok(compiledBy(tenantB, burst).validate, "another key's budget is its own");
  clock.now += Math.ceil(JSON.stringify(schemaOf(0)).length / COMPILE_CHARS_PER_MS);
  t.ok(compiledBy(tenantA, burst + 1).validate, 'compiled once the budget refilled');
});

t.test('deep arguments (issue 14 §2) are kept as text, never walked or re-serialized', async (t) => {
  const deepText = `{"a":${'['.repeat(20_000)}${']'.repeat(20_000)}}`;
  const fromText = fixArguments(deepText, { type: 'object', required: ['a'] });
  t.ok(fromText.wrapped);
  t.equal((JSON.parse(fromText.arguments) as { raw_arguments: string }).raw_arguments, deepText, 'the text is kept');
  const deepValue = JSON.parse(deepText) as unknown;
  const fromObject = fixArguments(deepValue);
  t.ok(fromObject.wrapped, 'an object from a text parser: no JSON.stringify stack overflow');
  t.match(fromObject.arguments, /nested deeper than/);
  t.equal(fixArguments('{"a":[[1]]}').arguments, '{"a":[[1]]}', 'ordinary nesting untouched');
});

t.test('number coercion: one way to match each digit, same answers', async (t) => {
  const schema = { type: 'object', properties: { n: { type: 'number' } } };
  t.equal(fixArguments('{"n":"12.5e3"}', schema).arguments, '{"n":12500}');
  t.equal(fixArguments('{"n":".5"}', schema).arguments, '{"n":0.5}');
  t.equal(fixArguments('{"n":"7."}', schema).arguments, '{"n":7}');
  t.equal(fixArguments(JSON.stringify({ n: `${'1'.repeat(100_000)}x` }), schema).errors.length, 1, 'a long digit run then junk: refused');
});

t.test('an unsupported patternProperties pattern turns the schema check off (it would match every property)', async (t) => {
  const schema = { type: 'object', properties: { n: { type: 'number' } }, patternProperties: { '^(?!n$)': { type: 'number' } } };
  const result = fixArguments('{"n":"5","label":"x"}', schema);
  t.equal(result.arguments, '{"n":"5","label":"x"}', 'nothing coerced on a guess');
  t.same(result.errors, []);
  t.match(result.unchecked.join(' '), /not checked/);
});

t.test('schema checks with client patterns grow linearly: 50 KB vs 200 KB (CPU time, min of 5, generous ratio)', async (t) => {
  const schema = { type: 'object', properties: { s: { type: 'string', pattern: '^(a|aa)+(b+)+c$' }, e: { type: 'string', format: 'email' } } };
  const cost = (size: number): number => {
    const text = JSON.stringify({ s: `${'a'.repeat(size / 2)}${'b'.repeat(size / 2)}!`, e: `${'a'.repeat(500)}@${'a'.repeat(500)}` });
    return fastestCpuMs(5, () => t.equal(fixArguments(text, schema).errors.length, 2));
  };
  cost(10_000); // warm-up
  const { ratio, pairs } = growthRatio(() => ({ small: cost(50_000), large: cost(200_000) }), 12, { floor: 0.5 });
  t.ok(ratio < 12, `200 KB / 50 KB = ${ratio.toFixed(2)} (linear: 4; pairs measured: ${pairs})`);
});

// A request's tools arrive as new objects every time: a schema equal to one looked up recently is
// found by comparing it with a kept shape, not by serializing it to its text.
t.test('an equal schema seen recently is found without serializing it', async (t) => {
  const tool = { type: 'object', properties: { q: { type: 'string', minLength: 1 }, n: { type: 'integer' } }, required: ['q'] };
  const first = validatorFor(structuredClone(tool), budget);
  validatorFor(structuredClone(schema), budget); // another schema in between: the last-object slot misses
  const stringify = JSON.stringify;
  let calls = 0;
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    calls++;
    return stringify(...args);
  }) as typeof JSON.stringify;
  let again;
  try {
    again = validatorFor(structuredClone(tool), budget);
  } finally {
    JSON.stringify = stringify;
  }
  t.equal(again, first, 'the same validator');
  t.equal(calls, 0, 'no JSON.stringify of the schema');
});

t.test('checking arguments against a known schema builds no key arrays', async (t) => {
  const tool = { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] };
  t.same(fixArguments('{"q":"x"}', structuredClone(tool)).errors, []);
  const { result, calls } = withCallsCounted(Object, 'keys', () => fixArguments('{"q":"y"}', structuredClone(tool)));
  t.same(result.errors, []);
  t.equal(calls, 0);
  t.equal(fixArguments('{"q":1}', {}).errors.length, 0, 'an empty schema is no schema');
});

t.test('a key named __proto__ in arguments stays data when a value is coerced', async (t) => {
  const schema = { type: 'object', properties: { ['__proto__']: { type: 'integer' } } };
  const fixed = fixArguments('{"__proto__": "5"}', schema);
  const value = JSON.parse(fixed.arguments) as Record<string, unknown>;
  t.equal(Object.getPrototypeOf({}), Object.prototype);
  t.ok(Object.hasOwn(value, '__proto__'), 'an own property');
  t.equal(({} as Record<string, unknown>).polluted, undefined);
});

t.test('readArgumentsObject: strict, double-encoded or mended objects; never a completion of cut-off text', async (t) => {
  t.same(checks.readArgumentsObject('{"a":1}', budget), { value: { a: 1 }, repaired: false });
  t.same(checks.readArgumentsObject('"{\\"a\\":1}"', undefined), { value: { a: 1 }, repaired: true }, 'double-encoded needs no budget');
  t.same(checks.readArgumentsObject("{'a': 1,}", budget), { value: { a: 1 }, repaired: true }, 'mended');
  t.equal(checks.readArgumentsObject("{'a': 1,}", undefined), undefined, 'no budget, no mending');
  t.equal(checks.readArgumentsObject('{"a": "x', budget), 'cut off');
  t.equal(checks.readArgumentsObject('"{\\"a\\": \\"x"', budget), 'cut off', 'cut off inside a double encoding too');
  for (const text of ['[1]', '42', 'null', 'not json']) t.equal(checks.readArgumentsObject(text, budget), undefined, text);
});
