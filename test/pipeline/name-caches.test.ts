import { LRUCache } from 'lru-cache';
import t from 'tap';
import { withCallsCounted } from '../helpers/count-calls.js';
import { NameCaches } from '../../src/pipeline/name-caches.js';

const RULE = { pattern: /^[a-zA-Z0-9_-]+$/, maxLength: 64 };

/** Counts LRU lookups while `run` runs. */
function lruGets(run: () => void): number {
  return withCallsCounted(LRUCache.prototype, 'get', run).calls;
}

// Every turn of an agent sends the same tools (a new array of names each request): the last tool
// set's resolver and codec are found by comparing names, with no key text built and hashed.
t.test('the same tool names again: the last resolver and codec, without a cache lookup', async (t) => {
  const caches = new NameCaches({});
  const codec = caches.codec(['get_weather', 'get.time'], RULE);
  const resolver = caches.resolver(['get_weather', 'get.time']);
  let again: unknown[] = [];
  t.equal(
    lruGets(() => {
      again = [caches.codec(['get_weather', 'get.time'], RULE), caches.resolver(['get_weather', 'get.time'])];
    }),
    0,
  );
  t.equal(again[0], codec);
  t.equal(again[1], resolver);
});

t.test('other names, order or rule: the cache decides, as before', async (t) => {
  const caches = new NameCaches({});
  const first = caches.codec(['a', 'b'], RULE);
  const swapped = caches.codec(['b', 'a'], RULE);
  t.not(swapped, first, 'order is part of the tool set');
  t.equal(caches.codec(['a', 'b'], RULE), first, 'back to the first set: the cached codec');
  const otherRule = caches.codec(['a', 'b'], { pattern: /^[a-z]+$/, maxLength: 8 });
  t.not(otherRule, first);
  t.equal(caches.codec(['a', 'b'], { ...RULE }), first, 'an equal rule object shares the cached codec');
  t.not(caches.resolver(['a']), caches.resolver(['a', 'b']));
  t.equal(caches.codec(['a', 'b'], RULE).encode('a'), first.encode('a'));
  const names = ['x', 'y'];
  const kept = caches.resolver(names);
  names[0] = 'z'; // the caller's array changing later does not change what the slot compares
  t.not(caches.resolver(['z', 'y']), kept);
  t.equal(caches.resolver(['x', 'y']), kept);
});
