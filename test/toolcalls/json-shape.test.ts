import fc from 'fast-check';
import t from 'tap';
import { jsonShape, sameJson } from '../../src/toolcalls/json-shape.js';

// sameJson(value, jsonShape(text)) must say true only when JSON.stringify(value) === text: a
// wrong true hands a request the validator of another schema. A false where the texts are equal
// only costs the serialization, but plain JSON values must match.
t.test('sameJson agrees with comparing JSON texts', async (t) => {
  const jsonValue = (keys: string[]): fc.Arbitrary<unknown> =>
    fc.letrec((tie) => ({
      value: fc.oneof({ depthSize: 'small' }, fc.constantFrom('a', 'b', '', 0, -0, 1, 1.5, true, false, null), tie('array'), tie('object')),
      array: fc.array(tie('value'), { maxLength: 3 }),
      object: fc.dictionary(fc.constantFrom(...keys), tie('value'), { maxKeys: 3 }),
    })).value;
  const plain = jsonValue(['a', 'b', 'type', '1', '0']);
  // Values JSON.stringify reads specially, mixed into otherwise JSON-shaped trees.
  const odd = fc.constantFrom<unknown>(undefined, Number.NaN, Infinity, () => 1, new Date(0), Object.create(null), { toJSON: () => 'a' }, { toJSON: 1 }, Object.assign([1, 2, 3], { length: 4 }), new String('a'));
  const tree = fc.oneof(jsonValue(['a', 'b', 'toJSON']), fc.tuple(plain, odd).map(([value, extra]) => ({ value, extra })), fc.tuple(plain, odd).map(([value, extra]) => [value, extra]));
  const wrong: string[] = [];
  fc.assert(
    fc.property(tree, plain, (candidate, other) => {
      for (const reference of [candidate, other]) {
        const text = JSON.stringify(reference);
        if (text !== undefined && sameJson(candidate, jsonShape(text)) && JSON.stringify(candidate) !== text) wrong.push(`${String(JSON.stringify(candidate))} vs ${text}`);
      }
    }),
    { numRuns: 3000 },
  );
  t.same(wrong, [], 'never true for different texts');
  const missed: string[] = [];
  fc.assert(
    fc.property(plain, plain, (candidate, other) => {
      for (const reference of [candidate, structuredClone(candidate), other]) {
        const text = JSON.stringify(reference);
        if ((JSON.stringify(candidate) === text) !== sameJson(candidate, jsonShape(text))) missed.push(`${JSON.stringify(candidate)} vs ${text}`);
      }
    }),
    { numRuns: 3000 },
  );
  t.same(missed, [], 'plain JSON values: true exactly when the texts are equal');
  // Key order is part of the text.
  t.equal(sameJson({ a: 1, b: 2 }, jsonShape('{"b":2,"a":1}')), false);
  t.equal(sameJson({ a: 1, b: 2 }, jsonShape('{"a":1,"b":2}')), true);
});

t.test('sameJson stays right when a getter on the value compares another value meanwhile', async (t) => {
  const inner: boolean[] = [];
  const value = {
    a: 1,
    get b() {
      inner.push(sameJson({ x: [1, 2] }, jsonShape('{"x":[1,2]}')));
      return 2;
    },
    c: 3,
  };
  t.equal(sameJson(value, jsonShape('{"a":1,"b":2,"c":4}')), false, 'the outer walk still sees c differ');
  t.equal(sameJson(value, jsonShape('{"a":1,"b":2,"c":3}')), true);
  t.same(inner, [true, true]);
});
