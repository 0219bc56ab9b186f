import { createHash } from 'node:crypto';
import t from 'tap';
import { ANONYMOUS_SCOPE, scopeDigestCount, scopeOf } from '../../src/state/scope.js';

const expected = (name: string): string => createHash('sha256').update(`toolgate-scope\u0000${name}`).digest('hex').slice(0, 24);

t.test('a key name is hashed once; later requests get the remembered scope', async (t) => {
  const before = scopeDigestCount();
  const first = scopeOf('scope-test-alpha');
  for (let i = 0; i < 100; i++) t.equal(scopeOf('scope-test-alpha'), first);
  t.equal(scopeDigestCount() - before, 1, 'one digest for 101 lookups');
  t.equal(first, expected('scope-test-alpha'), 'the same digest as before the cache (stored Redis keys stay valid)');
  t.equal(scopeOf('scope-test-beta'), expected('scope-test-beta'));
  t.equal(scopeDigestCount() - before, 2);
  t.equal(scopeOf(undefined), ANONYMOUS_SCOPE);
});

t.test('the memory is bounded: many names still give the right scopes', async (t) => {
  for (let i = 0; i < 500; i++) t.equal(scopeOf(`many-${i}`), expected(`many-${i}`));
  t.ok(scopeDigestCount() >= 500);
});
