import * as crypto from 'node:crypto';
import t from 'tap';
import { ANONYMOUS_SCOPE, scopeOf } from '../../src/util/scope.js';

const { createHash } = crypto;

const expected = (name: string): string => createHash('sha256').update(`toolgate-scope\u0000${name}`).digest('hex').slice(0, 24);

t.test('a key name is hashed once; later requests get the remembered scope', async (t) => {
  let digests = 0;
  const counted = (...args: Parameters<typeof crypto.hash>): string => {
    digests++;
    return crypto.hash(...args) as string;
  };
  const fresh = await t.mockImport<typeof import('../../src/util/scope.js')>('../../src/util/scope.js', { 'node:crypto': { ...crypto, hash: counted } });
  const first = fresh.scopeOf('scope-test-alpha');
  for (let i = 0; i < 100; i++) t.equal(fresh.scopeOf('scope-test-alpha'), first);
  t.equal(digests, 1, 'one digest for 101 lookups');
  t.equal(first, expected('scope-test-alpha'), 'the same digest as before the cache (stored Redis keys stay valid)');
  t.equal(fresh.scopeOf('scope-test-beta'), expected('scope-test-beta'));
  t.equal(digests, 2);
  t.equal(fresh.scopeOf(undefined), ANONYMOUS_SCOPE);
  t.equal(digests, 2, 'the anonymous scope needs no digest');
});

t.test('the memory is bounded: many names still give the right scopes', async (t) => {
  for (let i = 0; i < 500; i++) t.equal(scopeOf(`many-${i}`), expected(`many-${i}`));
  t.equal(scopeOf('many-0'), expected('many-0'), 'a name from before the map was emptied');
});
