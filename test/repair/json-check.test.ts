import fc from 'fast-check';
import t from 'tap';
import { isValidJson } from '../../src/repair/json-check.js';

const parses = (s: string): boolean => {
  try {
    JSON.parse(s);
    return true;
  } catch {
    return false;
  }
};

t.test('agrees with JSON.parse on hand-picked cases', async (t) => {
  const cases = [
    '{}', '[]', '0', '-0', '1.5e-3', '"a\\u00e9\\n"', 'true', 'null', ' {"a" : [1, {"b": null}] } ', '{"a":1,}', '[1,]', '01', '-', '1.',
    '.5', '1e', '"\\x"', '"\u0001"', '{a:1}', "{'a':1}", '', ' ', 'nul', '{"a":1}}', '"unterminated', '[1 2]', '\uFEFF{}', '{"a"}', '"\\uZZZZ"',
    '['.repeat(1000) + ']'.repeat(1000), '['.repeat(1000),
  ];
  for (const c of cases) t.equal(isValidJson(c), parses(c), JSON.stringify(c.slice(0, 30)));
});

t.test('property: agrees with JSON.parse on JSON text and on mangled JSON', async (t) => {
  fc.assert(
    fc.property(fc.json(), fc.nat(), fc.string({ maxLength: 3 }), (json, at, junk) => {
      if (!isValidJson(json)) return false;
      const cut = at % (json.length + 1);
      const mangled = json.slice(0, cut) + junk + json.slice(cut + 1);
      return isValidJson(mangled) === parses(mangled);
    }),
    { seed: 42, numRuns: 2000 },
  );
  t.pass('2000 runs');
});
