import t from 'tap';
import { fixArguments, toArgumentsJson, validatorFor } from '../../src/toolcalls/arguments.js';

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
  t.same(JSON.parse(raw.arguments), { _raw: [1, 2] }, 'otherwise under _raw');
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
  t.equal(validatorFor(schema), validatorFor(schema), 'same object → same validator');
  t.equal(validatorFor(structuredClone(schema)), validatorFor(schema), 'equal schema text → same validator');
  const draft2020 = { $schema: 'https://json-schema.org/draft/2020-12/schema', $id: 'x', type: 'object', properties: { a: { type: 'string', format: 'email' } } };
  t.same(fixArguments('{"a": "not-an-email"}', draft2020).errors.length, 1);
  t.same(fixArguments('{"a": 1}', { type: 'object', properties: { a: { $ref: '#/nope' } } }).errors, [], 'an uncompilable schema skips validation');
});
