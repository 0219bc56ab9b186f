import t from 'tap';
import { derivedOnce } from '../../src/repair/request-memo.js';

// A value derived from a request object is computed once per object, invisible to spreads,
// JSON and key listings, and never shared with a copy.

const KEY = Symbol('test derived');

t.test('derived once per object, a copy derives its own', async (t) => {
  let runs = 0;
  const derive = (request: { messages: string[] }): number => {
    runs++;
    return request.messages.length;
  };
  const request = { messages: ['a', 'b'] };
  t.equal(derivedOnce(request, KEY, derive), 2);
  t.equal(derivedOnce(request, KEY, derive), 2);
  t.equal(runs, 1, 'computed once');
  const copy = { ...request, messages: ['a'] };
  t.equal(derivedOnce(copy, KEY, derive), 1, 'the spread copy did not carry the value');
  t.equal(runs, 2);
  t.same(Object.keys(request), ['messages']);
  t.equal(JSON.stringify(request), '{"messages":["a","b"]}');
  t.notOk(Object.prototype.propertyIsEnumerable.call(request, KEY), 'not enumerable');
});

t.test('an object that cannot take the slot is derived every time, still right', async (t) => {
  let runs = 0;
  const request = Object.freeze({ messages: ['a'] });
  const derive = (value: { messages: readonly string[] }): number => {
    runs++;
    return value.messages.length;
  };
  t.equal(derivedOnce(request, KEY, derive), 1);
  t.equal(derivedOnce(request, KEY, derive), 1);
  t.equal(runs, 2);
});
