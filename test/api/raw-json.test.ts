import t from 'tap';
import { forgetRawJson, rawJsonOf, withRawJson } from '../../src/api/raw-json.js';

// The raw text rides on the object it was parsed into and on nothing derived from it: a copy, a
// serialization or a deep comparison must not see it (a copy may be changed, and then relaying the
// old bytes would send what the gateway did not mean to send).

t.test('the text stays with the object, not with copies or its serialization', (t) => {
  const text = '{"a":1,"b":{"c":"x"}}';
  const parsed = withRawJson(JSON.parse(text) as { a: number; b: { c: string } }, text);
  t.equal(rawJsonOf(parsed), text);
  t.equal(rawJsonOf({ ...parsed }), undefined, 'a spread copy has no raw text');
  t.equal(rawJsonOf(Object.assign({}, parsed)), undefined, 'an assigned copy has no raw text');
  t.equal(rawJsonOf(structuredClone(parsed)), undefined, 'a structured clone has no raw text');
  t.equal(JSON.stringify(parsed), text, 'serialization does not include it');
  t.same(Reflect.ownKeys(parsed), ['a', 'b'], 'no own key of any kind');
  t.strictSame(parsed, { a: 1, b: { c: 'x' } }, 'deep comparison does not see it');
  t.equal(rawJsonOf(parsed.b), undefined, 'nested objects have none of their own');
  t.end();
});

t.test('stamping again replaces the text; forgetting removes it', (t) => {
  const value = withRawJson({ a: 1 }, '{"a":1}');
  withRawJson(value, '{ "a": 1 }');
  t.equal(rawJsonOf(value), '{ "a": 1 }');
  forgetRawJson(value);
  t.equal(rawJsonOf(value), undefined);
  withRawJson(value, '{"a":1}');
  t.equal(rawJsonOf(value), '{"a":1}', 'a forgotten object can be stamped again');
  forgetRawJson({ b: 2 });
  t.equal(rawJsonOf({ b: 2 }), undefined, 'forgetting an unstamped object is harmless');
  t.end();
});
